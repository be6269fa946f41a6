// Webhook signatures as the Standard Webhooks specification writes them (https://www.standardwebhooks.com, the
// `spec/standard-webhooks.md` of github.com/standard-webhooks/standard-webhooks): HMAC-SHA256 of
// `${webhook-id}.${webhook-timestamp}.${body}`, keyed by the bytes of a `whsec_<base64>` secret, sent as
// `v1,<base64>` in `webhook-signature`, several space-separated while a secret is rolled. Plain node:crypto, no
// `server-only`: the engine's worker, the console and the tests (under plain node) all load it.
// tests/webhooks/signing.test.ts checks it against the `standardwebhooks` package and the spec's test vector.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const PREFIX = "whsec_";

// 32 random bytes (256 bits): the spec asks for 24 to 64; a key as long as SHA-256's output, the size Svix issues.
const SECRET_BYTES = 32;

// Five minutes either way, the spec's recommended tolerance (and the `standardwebhooks` libraries' default).
const DEFAULT_TOLERANCE_SECONDS = 300;

// A new endpoint secret in the spec's form: "whsec_" and the base64 of 32 random bytes.
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

// The key bytes of a secret: the base64 after "whsec_" (a secret without the prefix is taken as base64 too, as the
// reference libraries do).
function keyOf(secret: string): Buffer {
  const b64 = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  const key = Buffer.from(b64, "base64");
  if (key.length === 0) throw new Error("webhook secret: no key bytes after whsec_");
  return key;
}

function hmac(key: Buffer, id: string, timestamp: string, body: string): Buffer {
  return createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest();
}

// The value of the `webhook-signature` header: "v1,<base64 HMAC>" for each secret, space-separated (two during a
// roll's overlap, so that a receiver holding either secret accepts the delivery).
export function signWebhook(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  if (secrets.length === 0) throw new Error("signWebhook: no secret");
  if (!Number.isSafeInteger(timestampSeconds))
    throw new Error("signWebhook: timestamp must be whole seconds");
  const ts = String(timestampSeconds);
  return secrets.map((s) => `v1,${hmac(keyOf(s), id, ts, body).toString("base64")}`).join(" ");
}

// Whether a delivery is signed with `secret`: one of the header's space-separated `v1` signatures matches
// (compared in constant time), and the timestamp is within `toleranceSeconds` of now (a replayed old delivery fails).
export function verifyWebhook(
  secret: string,
  h: { id: string; timestamp: string; signature: string },
  body: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  if (!/^\d{1,15}$/.test(h.timestamp)) return false;
  if (Math.abs(nowSeconds - Number(h.timestamp)) > toleranceSeconds) return false;
  let expected: Buffer;
  try {
    expected = hmac(keyOf(secret), h.id, h.timestamp, body);
  } catch {
    return false;
  }
  let ok = false;
  for (const entry of h.signature.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue; // v1a (asymmetric) and unknown versions: not ours
    const given = Buffer.from(entry.slice(comma + 1), "base64");
    // Every candidate is compared (no early return): the time does not say which one matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) ok = true;
  }
  return ok;
}
