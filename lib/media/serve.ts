// Serves the files of public media: /media/<orgSlug>/<fileName> and /media/<orgSlug>/thumbs/<fileName>.
// Errors are answered in the API's error shape (a request id, a stable code).
import { createHash, randomUUID } from "node:crypto";
import type { Queryable } from "@/db/client";
import type { MediaType } from "@/db/schema";
import { renderMediaFile, type MediaVariant } from "@/db/seed/media-files";
import { errorResponse } from "@/lib/public-api/error-response";
import { PublicApiError, type ErrorCode } from "@/lib/public-api/api-errors";
import { baseHeaders } from "@/lib/public-api/headers";

// Cache lifetime of a media file: the content of a file name never changes while the media exists.
export const MEDIA_CACHE_CONTROL = "public, max-age=86400, stale-while-revalidate=604800";

interface MediaRow {
  id: string;
  type: MediaType;
  original_name: string;
  updated_at: Date | string;
}

// The organization slug, file name and variant named by a request path, or null when it names no media file.
export function parseMediaPath(
  pathname: string,
): { org: string; fileName: string; variant: MediaVariant } | null {
  const parts = pathname.split("/");
  const at = parts.indexOf("media");
  if (at < 0) return null;
  const rest = parts.slice(at + 1);
  let decoded: string[];
  try {
    decoded = rest.map((p) => decodeURIComponent(p));
  } catch {
    return null;
  }
  // A file name never holds a slash or a control character (a NUL would reach Postgres as an encoding error).
  const ok = (s: string | undefined): s is string =>
    Boolean(s) && !/[/\u0000-\u001f\u007f]/.test(s!) && s !== "." && s !== "..";
  if (decoded.length === 2 && ok(decoded[0]) && ok(decoded[1])) {
    return { org: decoded[0], fileName: decoded[1], variant: "file" };
  }
  if (decoded.length === 3 && decoded[1] === "thumbs" && ok(decoded[0]) && ok(decoded[2])) {
    return { org: decoded[0], fileName: decoded[2], variant: "thumb" };
  }
  return null;
}

// An error answer of the media route: a PublicApiError of the table, or anything thrown (mapped as the API maps it).
function problem(
  request: Request,
  err: PublicApiError | unknown,
  extra: Record<string, string> = {},
): Response {
  const requestId = randomUUID();
  const headers = baseHeaders(requestId);
  for (const [k, v] of Object.entries(extra)) headers.set(k, v);
  return errorResponse(err, requestId, headers, request.method === "HEAD");
}

function failure(code: ErrorCode, message: string): PublicApiError {
  return new PublicApiError(code, message);
}

function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

// One "bytes=a-b" range of a body of the given length: [start, end] inclusive, "unsatisfiable", or null (whole body).
function byteRange(header: string | null, length: number): [number, number] | "unsatisfiable" | null {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === "" && m[2] === "")) return null;
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "unsatisfiable";
    start = Math.max(0, length - suffix);
    end = length - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? length - 1 : Math.min(Number(m[2]), length - 1);
  }
  if (start >= length || start > end) return "unsatisfiable";
  return [start, end];
}

// Answers a GET or HEAD request for a media file; the media must exist in the organization and be public.
export async function serveMediaFile(
  request: Request,
  db: Queryable | (() => Promise<Queryable>),
): Promise<Response> {
  const target = parseMediaPath(new URL(request.url).pathname);
  const notFound = () => problem(request, failure("PUBLIC_API_NOT_FOUND", "Fichier introuvable."));
  if (!target) return notFound();
  const dot = target.fileName.lastIndexOf(".");
  if (dot <= 0) return notFound();

  let row: MediaRow | undefined;
  try {
    const handle = typeof db === "function" ? await db() : db;
    // The seeded file name is "<slug>.<extension>": the lookup uses the (org_id, slug) unique index.
    [row] = await handle.query<MediaRow>(
      `select m.id, m.type, m.original_name, m.updated_at
         from media m join organizations o on o.id = m.org_id
        where o.slug = $1 and m.slug = $2 and m.file_name = $3 and m.is_public`,
      [target.org, target.fileName.slice(0, dot), target.fileName],
    );
  } catch (err) {
    // Only an unreachable database is an outage (503 with Retry-After); any other failure is a logged 500.
    return problem(request, err);
  }
  if (!row) return notFound();

  const file = renderMediaFile(row, target.variant);
  const etag = `"${createHash("sha256").update(file.body).digest("base64url").slice(0, 27)}"`;
  const headers = new Headers({
    "Content-Type": file.contentType,
    "Cache-Control": MEDIA_CACHE_CONTROL,
    ETag: etag,
    "Last-Modified": new Date(row.updated_at).toUTCString(),
    "Accept-Ranges": "bytes",
    "Access-Control-Allow-Origin": "*",
    "Cross-Origin-Resource-Policy": "cross-origin",
    "X-Content-Type-Options": "nosniff",
  });
  if (target.variant === "file") {
    headers.set("Content-Disposition", `inline; filename*=UTF-8''${encodeURIComponent(row.original_name)}`);
  }
  if (etagMatches(request.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers });
  }

  let body = file.body;
  let status = 200;
  const range = byteRange(request.headers.get("range"), body.length);
  if (range === "unsatisfiable") {
    return problem(request, failure("PUBLIC_API_RANGE_NOT_SATISFIABLE", "Plage d'octets invalide."), {
      "Content-Range": `bytes */${body.length}`,
    });
  }
  if (range) {
    headers.set("Content-Range", `bytes ${range[0]}-${range[1]}/${body.length}`);
    body = body.subarray(range[0], range[1] + 1);
    status = 206;
  }
  headers.set("Content-Length", String(body.length));
  const payload = request.method === "HEAD" ? null : new Uint8Array(body);
  return new Response(payload, { status, headers });
}
