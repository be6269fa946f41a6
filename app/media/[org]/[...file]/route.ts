import { serveMediaFile } from "@/lib/media/serve";
import { getRuntime } from "@/lib/runtime";

// Files are rendered per request from the database row: never prerendered, always on Node.js.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// GET /media/<orgSlug>/<fileName> and /media/<orgSlug>/thumbs/<fileName>: the file of a public media.
export function GET(request: Request): Promise<Response> {
  return serveMediaFile(request, () => getRuntime().db());
}

// HEAD: the headers of GET, without the body.
export const HEAD = GET;
