// The media files route, called as Next.js would, on the embedded PGlite database seeded with the demo.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { seedDemo } from "@/db/seed";
import { getConfig, resetConfig } from "@/lib/config";
import { createRuntime, type Runtime } from "@/lib/runtime";
import { swapRuntime } from "../support/api";
import { mediaUrls } from "@/lib/catalog/resources/media-urls";
import { GET, HEAD } from "@/app/media/[org]/[...file]/route";

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

interface MediaRow {
  id: string;
  slug: string;
  file_name: string;
  type: string;
  size_bytes: number;
  is_public: boolean;
}

describe("GET /media/<org>/<file> on the embedded database", () => {
  let dir: string;
  let db: Database;
  let runtime: Runtime;
  const previous = process.env.DATA_DIR;
  const pick = async (org: string, type: string, isPublic = true) =>
    (
      await db.query<MediaRow>(
        `select m.id, m.slug, m.file_name, m.type, m.size_bytes, m.is_public from media m
           join organizations o on o.id = m.org_id
          where o.slug = $1 and m.type = $2 and m.is_public = $3 order by m.id limit 1`,
        [org, type, isPublic],
      )
    )[0]!;
  const fetchFile = async (url: string, init: RequestInit = {}, handler = GET) => {
    const res = await handler(new Request(url, init));
    return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
  };
  const urlOf = (org: string, m: MediaRow) => mediaUrls("http://files.test", org, m.file_name);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "media-files-"));
    process.env.DATA_DIR = dir;
    resetConfig();
    // The runtime opens the embedded database of DATA_DIR, as in production; the route gets the same handle.
    runtime = createRuntime(getConfig());
    await swapRuntime(runtime);
    db = await runtime.db();
    await migrate(db);
    await seedDemo(db);
  });
  afterAll(async () => {
    await swapRuntime(undefined);
    if (previous === undefined) delete process.env.DATA_DIR;
    else process.env.DATA_DIR = previous;
    resetConfig();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves an image as a 320×320 PNG whose size is the recorded size_bytes, with cache headers", async () => {
    const m = await pick("acme", "IMAGE");
    const { res, bytes } = await fetchFile(urlOf("acme", m).mediaUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect([...bytes.slice(0, 8)]).toEqual(PNG);
    const view = new DataView(bytes.buffer);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([320, 320]);
    expect(bytes.length).toBe(m.size_bytes);
    expect(res.headers.get("content-length")).toBe(String(bytes.length));
    expect(res.headers.get("cache-control")).toMatch(/^public, max-age=\d+/);
    expect(res.headers.get("etag")).toMatch(/^"[\w-]{20,}"$/);
    expect(res.headers.get("last-modified")).toMatch(/GMT$/);
  });

  it("serves thumbnails of every type as 64×64 PNGs", async () => {
    for (const type of ["IMAGE", "VIDEO", "DOCUMENT"]) {
      const m = await pick("globex", type);
      const { res, bytes } = await fetchFile(urlOf("globex", m).thumbnailUrl);
      expect(res.status, type).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect([...bytes.slice(0, 8)]).toEqual(PNG);
      const view = new DataView(bytes.buffer);
      expect([view.getUint32(16), view.getUint32(20)]).toEqual([64, 64]);
    }
  });

  it("serves a video as MP4 and a document as PDF", async () => {
    const video = await pick("acme", "VIDEO");
    const v = await fetchFile(urlOf("acme", video).mediaUrl);
    expect(v.res.status).toBe(200);
    expect(v.res.headers.get("content-type")).toBe("video/mp4");
    expect(new TextDecoder().decode(v.bytes.slice(4, 8))).toBe("ftyp");
    expect(v.bytes.length).toBe(video.size_bytes);
    const doc = await pick("acme", "DOCUMENT");
    const d = await fetchFile(urlOf("acme", doc).mediaUrl);
    expect(d.res.status).toBe(200);
    expect(d.res.headers.get("content-type")).toBe("application/pdf");
    const text = new TextDecoder("latin1").decode(d.bytes);
    expect(text.startsWith("%PDF-")).toBe(true);
    expect(text.trimEnd().endsWith("%%EOF")).toBe(true);
    expect(d.bytes.length).toBe(doc.size_bytes);
    expect(d.res.headers.get("content-disposition")).toMatch(/^inline; filename\*=UTF-8''.+\.pdf$/);
  });

  it("is deterministic per media, and colours differ between media", async () => {
    const [a, b] = await db.query<MediaRow>(
      "select file_name from media where type = 'IMAGE' and is_public order by id limit 2",
    );
    const first = await fetchFile(urlOf("acme", a!).mediaUrl);
    const again = await fetchFile(urlOf("acme", a!).mediaUrl);
    expect(Buffer.from(again.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    const orgOfB = (
      await db.query<{ slug: string }>(
        "select o.slug from media m join organizations o on o.id = m.org_id where m.file_name = $1",
        [b!.file_name],
      )
    )[0]!.slug;
    const orgOfA = (
      await db.query<{ slug: string }>(
        "select o.slug from media m join organizations o on o.id = m.org_id where m.file_name = $1",
        [a!.file_name],
      )
    )[0]!.slug;
    const one = await fetchFile(urlOf(orgOfA, a!).mediaUrl);
    const two = await fetchFile(urlOf(orgOfB, b!).mediaUrl);
    expect(one.res.status).toBe(200);
    expect(two.res.status).toBe(200);
    expect(Buffer.from(one.bytes).equals(Buffer.from(two.bytes))).toBe(false);
    expect(one.res.headers.get("etag")).not.toBe(two.res.headers.get("etag"));
  });

  it("HEAD answers the headers without a body; If-None-Match gives 304; Range gives 206", async () => {
    const m = await pick("acme", "VIDEO");
    const { mediaUrl } = urlOf("acme", m);
    const get = await fetchFile(mediaUrl);
    const head = await fetchFile(mediaUrl, { method: "HEAD" }, HEAD);
    expect(head.res.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.res.headers.get("content-length")).toBe(String(get.bytes.length));
    expect(head.res.headers.get("etag")).toBe(get.res.headers.get("etag"));
    const cached = await fetchFile(mediaUrl, { headers: { "if-none-match": get.res.headers.get("etag")! } });
    expect(cached.res.status).toBe(304);
    expect(cached.bytes.length).toBe(0);
    const part = await fetchFile(mediaUrl, { headers: { range: "bytes=0-7" } });
    expect(part.res.status).toBe(206);
    expect(part.res.headers.get("content-range")).toBe(`bytes 0-7/${get.bytes.length}`);
    expect([...part.bytes]).toEqual([...get.bytes.slice(0, 8)]);
    const bad = await fetchFile(mediaUrl, { headers: { range: `bytes=${get.bytes.length + 10}-` } });
    expect(bad.res.status).toBe(416);
    expect(JSON.parse(new TextDecoder().decode(bad.bytes))).toMatchObject({
      statusCode: 416,
      code: "PUBLIC_API_RANGE_NOT_SATISFIABLE",
    });
  });

  it("every public media URL of the API resolves (sample of each type and organization)", async () => {
    const rows = await db.query<MediaRow & { org: string }>(
      `select * from (select o.slug as org, m.file_name, m.type, m.size_bytes,
                             row_number() over (partition by o.slug, m.type order by m.id) as k
                        from media m join organizations o on o.id = m.org_id where m.is_public) x
        where k <= 5`,
    );
    expect(rows.length).toBe(30);
    for (const r of rows) {
      const { res, bytes } = await fetchFile(urlOf(r.org, r).mediaUrl);
      expect(res.status, r.file_name).toBe(200);
      expect(bytes.length).toBe(r.size_bytes);
    }
  });

  it("404 for unknown files, another organization's files, private media and malformed paths", async () => {
    const acmeImage = await pick("acme", "IMAGE");
    const privateImage = await pick("acme", "IMAGE", false);
    const cases = [
      "http://files.test/media/acme/nope.png",
      "http://files.test/media/acme/thumbs/nope.png",
      "http://files.test/media/nobody/" + acmeImage.file_name,
      mediaUrls("http://files.test", "globex", acmeImage.file_name).mediaUrl,
      mediaUrls("http://files.test", "globex", acmeImage.file_name).thumbnailUrl,
      urlOf("acme", privateImage).mediaUrl,
      urlOf("acme", privateImage).thumbnailUrl,
      "http://files.test/media/acme",
      "http://files.test/media/acme/" + acmeImage.slug,
      "http://files.test/media/acme/x/" + acmeImage.file_name,
      "http://files.test/media/acme/thumbs/x/" + acmeImage.file_name,
      "http://files.test/media/acme/%E0%A4%A",
      "http://files.test/media/acme/..%2F" + acmeImage.file_name,
      // Control characters never reach the database (a NUL was a Postgres encoding error answered 503).
      "http://files.test/media/acme/x%00.png",
      "http://files.test/media/acme/thumbs/x%00.png",
      "http://files.test/media/acme%00/" + acmeImage.file_name,
      "http://files.test/media/acme/x%0A.png",
    ];
    for (const url of cases) {
      const { res, bytes } = await fetchFile(url);
      expect(res.status, url).toBe(404);
      // The API's error shape: a stable code and the request id of the X-Request-Id header.
      expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual({
        statusCode: 404,
        message: "Fichier introuvable.",
        error: "Not Found",
        code: "PUBLIC_API_NOT_FOUND",
        requestId: res.headers.get("x-request-id"),
      });
      expect(res.headers.get("cache-control")).toBe("private, no-store");
    }
    const head = await fetchFile(cases[0]!, { method: "HEAD" }, HEAD);
    expect(head.res.status).toBe(404);
  });
});
