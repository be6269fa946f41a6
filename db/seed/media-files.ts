// Deterministic content of the demo media files: PNG images drawn in code, a small PDF, a shipped MP4.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import type { MediaType } from "@/db/schema";

// Which rendition of a media file: the file itself or its thumbnail.
export type MediaVariant = "file" | "thumb";

// A rendered file: bytes and MIME type.
export interface MediaFile {
  body: Uint8Array;
  contentType: string;
}

// Pixel size of the demo images and of every thumbnail.
export const IMAGE_SIZE = 320;
export const THUMB_SIZE = 64;

// File name extension of each media type in the demo catalog (the route serves these formats).
export const MEDIA_EXTENSIONS: Record<MediaType, string> = { IMAGE: "png", VIDEO: "mp4", DOCUMENT: "pdf" };
// MIME type of each media type's file.
export const MEDIA_MIME_TYPES: Record<MediaType, string> = {
  IMAGE: "image/png",
  VIDEO: "video/mp4",
  DOCUMENT: "application/pdf",
};

// ---------------------------------------------------------------- PNG

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "latin1");
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

type Shape = "image" | "play" | "page";

// Palette index of pixel (x, y) in a size×size picture: 0 background, 1 foreground, 2 accent.
function pixel(shape: Shape, size: number, x: number, y: number): number {
  const u = x / size;
  const v = y / size;
  if (shape === "play") {
    // A centred "play" triangle.
    const inside = u >= 0.34 && u <= 0.7 && Math.abs(v - 0.5) <= (0.7 - u) * 0.6;
    return inside ? 2 : 0;
  }
  if (shape === "page") {
    // A sheet of paper with text lines.
    if (u < 0.22 || u > 0.78 || v < 0.12 || v > 0.88) return 0;
    const line =
      v > 0.25 && v < 0.8 && u > 0.3 && u < 0.7 && Math.floor(v * size) % Math.max(4, size >> 4) < 2;
    return line ? 1 : 2;
  }
  // A product silhouette: a rounded block on a floor line.
  if (v > 0.78 && v < 0.8) return 1;
  const dx = Math.abs(u - 0.5);
  const dy = Math.abs(v - 0.5);
  if (dx < 0.22 && dy < 0.22 && !(dx > 0.17 && dy > 0.17 && (dx - 0.17) ** 2 + (dy - 0.17) ** 2 > 0.0025))
    return 2;
  return 0;
}

const idatCache = new Map<string, Buffer>();

// The IDAT chunk of a shape at a size; palette images, so it does not depend on the colours.
function idat(shape: Shape, size: number): Buffer {
  const key = `${shape}:${size}`;
  let cached = idatCache.get(key);
  if (!cached) {
    const raw = Buffer.alloc((size + 1) * size);
    for (let y = 0; y < size; y++) {
      raw[y * (size + 1)] = 0; // filter: none
      for (let x = 0; x < size; x++) raw[y * (size + 1) + 1 + x] = pixel(shape, size, x, y);
    }
    cached = chunk("IDAT", deflateSync(raw, { level: 9 }));
    idatCache.set(key, cached);
  }
  return cached;
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

// A size×size palette PNG of a shape, coloured from a seed string (same seed, same bytes).
export function renderPng(seed: string, size: number, shape: Shape = "image"): Buffer {
  const digest = createHash("md5").update(seed).digest();
  const hue = digest.readUInt16BE(0) % 360;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 3; // colour type: palette
  const palette = Buffer.from([...hsl(hue, 0.35, 0.9), ...hsl(hue, 0.25, 0.55), ...hsl(hue, 0.45, 0.45)]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("PLTE", palette),
    idat(shape, size),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

// ---------------------------------------------------------------- PDF

let pdfCache: Buffer | undefined;

// A one-page PDF document (ASCII text only, standard Helvetica font).
export function renderPdf(): Buffer {
  if (pdfCache) return pdfCache;
  const text =
    "BT /F1 18 Tf 72 760 Td (Fiche technique) Tj 0 -28 Td /F1 11 Tf (Document de demonstration du catalogue public.) Tj ET";
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  pdfCache = Buffer.from(out, "latin1");
  return pdfCache;
}

// ---------------------------------------------------------------- MP4

const VIDEO_ASSET = "demo-video.mp4";
let videoCache: Buffer | undefined;

// The demo video (1 s, 160×90, H.264), shipped under db/seed/assets.
export function loadVideo(): Buffer {
  if (videoCache) return videoCache;
  const candidates = [path.join(process.cwd(), "db", "seed", "assets", VIDEO_ASSET)];
  try {
    candidates.push(fileURLToPath(new URL(`./assets/${VIDEO_ASSET}`, import.meta.url)));
  } catch {
    // import.meta.url is not a file: URL inside some bundles; the working-directory path is enough there.
  }
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`demo video not found (looked in ${candidates.join(", ")})`);
  videoCache = readFileSync(found);
  return videoCache;
}

// ---------------------------------------------------------------- files

// The bytes of one media file or thumbnail; the media id seeds the colours.
export function renderMediaFile(media: { id: string; type: MediaType }, variant: MediaVariant): MediaFile {
  if (variant === "thumb") {
    const shape: Shape = media.type === "VIDEO" ? "play" : media.type === "DOCUMENT" ? "page" : "image";
    return { body: renderPng(media.id, THUMB_SIZE, shape), contentType: "image/png" };
  }
  switch (media.type) {
    case "VIDEO":
      return { body: loadVideo(), contentType: MEDIA_MIME_TYPES.VIDEO };
    case "DOCUMENT":
      return { body: renderPdf(), contentType: MEDIA_MIME_TYPES.DOCUMENT };
    default:
      return { body: renderPng(media.id, IMAGE_SIZE), contentType: MEDIA_MIME_TYPES.IMAGE };
  }
}

// Byte size of the file of each media type (the same for every media of a type).
export function mediaFileSizes(): Record<MediaType, number> {
  return {
    IMAGE: renderPng("size", IMAGE_SIZE).length,
    VIDEO: loadVideo().length,
    DOCUMENT: renderPdf().length,
  };
}
