import { getDb } from "@/db/client";
import { getConfig } from "@/lib/config";
import { serveMediaFile } from "../../serve-media";

// Files are rendered per request from the database row: never prerendered, always on Node.js.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// GET /media/<orgSlug>/<fileName> and /media/<orgSlug>/thumbs/<fileName>: the file of a public media.
export function GET(request: Request): Promise<Response> {
  return serveMediaFile(request, () => getDb(getConfig()));
}

// HEAD: the headers of GET, without the body.
export function HEAD(request: Request): Promise<Response> {
  return serveMediaFile(request, () => getDb(getConfig()));
}
