// Standard Webhooks verification (https://www.standardwebhooks.com) with Web Crypto: the `webhook-signature` header
// holds `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` entries, space-separated (two while a secret is rolled), keyed
// by the bytes of a `whsec_<base64>` secret; the timestamp must be within the tolerance (300 s, the spec's) of now,
// so that an old delivery replayed is refused. Every candidate is compared in constant time.
import type { WebhookEvent } from "./types.js";

// Five minutes either way: the tolerance the Standard Webhooks specification recommends.
const DEFAULT_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = "whsec_";

// A delivery that is not signed with the secret, is too old or too new, or lacks a header.
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

// A delivery's headers: a Headers object, or a plain record (node:http's `req.headers`, any case).
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

// What verifyWebhook may be told: the tolerance in seconds and the time to check against.
export interface VerifyOptions {
  toleranceSeconds?: number;
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value.join(" ") : value;
  }
  return undefined;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

// Whether two byte strings are equal, in a time that depends on their length only.
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

// The signed content: `${id}.${timestamp}.` and the body's bytes as they came.
function signedBytes(id: string, timestamp: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const head = encoder.encode(`${id}.${timestamp}.`);
  const tail = typeof body === "string" ? encoder.encode(body) : body;
  const bytes = new Uint8Array(head.length + tail.length);
  bytes.set(head);
  bytes.set(tail, head.length);
  return bytes;
}

// Checks a delivery: its headers and raw body (as received, before any parsing) against the endpoint's secret.
// Returns the parsed event; throws WebhookVerificationError when a header is missing, the timestamp is outside
// the tolerance, or no `v1` signature matches.
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signature = header(headers, "webhook-signature");
  if (!id || !timestamp || !signature)
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header");
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("invalid webhook-timestamp");
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now`);
  const keyBytes = base64Bytes(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
  );
  if (!keyBytes || keyBytes.length === 0)
    throw new WebhookVerificationError("invalid secret: not whsec_<base64>");
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, signedBytes(id, timestamp, body)));
  let ok = false;
  for (const entry of signature.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue; // v1a (asymmetric) and unknown versions
    const given = base64Bytes(entry.slice(comma + 1));
    // Every candidate is compared (no early return): the time does not say which one matched.
    if (given && sameBytes(given, expected)) ok = true;
  }
  if (!ok) throw new WebhookVerificationError("no webhook-signature matches");
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
}
