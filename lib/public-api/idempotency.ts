import { createHash } from "node:crypto";
import type { Queryable } from "@/db/client";
import { writeIssue } from "@/lib/catalog/writes/write-issues";
import { PublicApiError } from "./api-errors";
import type { ApiRequest } from "./api-request";

// The Idempotency-Key of a write (IETF httpapi idempotency-key draft, Stripe): per API key, kept 24 h. The first
// request claims the key; its answer is stored by the write's own transaction; a retry with the same body gets that
// answer again, another body a 422, and a retry while the first still runs waits for it a little, then a 409.

// How long a key is remembered.
export const IDEMPOTENCY_TTL_HOURS = 24;
// A claim without an answer after this long belongs to a request whose process died: it can be taken over. So can
// one taken before the database server last started: the write that would have answered it was lost with the server
// (a creation cut by a restart is retried at once, not refused for a minute).
const LEASE_SECONDS = 60;
// How long a retry waits for the first request to finish before its 409. A creation is a few statements, each
// bounded by DB_STATEMENT_TIMEOUT_MS (1 s by default): waiting 2 s covers one that is merely slow.
export const IDEMPOTENCY_WAIT_MS = 2_000;
const POLL_MS = 20;
// Longest key accepted (Stripe: 255).
export const IDEMPOTENCY_KEY_MAX = 255;

// The request's Idempotency-Key, or undefined without one: visible ASCII, 1 to 255 characters; the draft's
// structured-field form ("…" in double quotes) is read as the string inside.
export function idempotencyKeyOf(request: ApiRequest): string | undefined {
  const raw = request.headers.get("idempotency-key");
  if (raw === null) return undefined;
  let key = raw.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(key)) {
    throw new PublicApiError("PUBLIC_API_INVALID_HEADER", undefined, {
      details: [writeIssue("Idempotency-Key", "INVALID_IDEMPOTENCY_KEY", "header", IDEMPOTENCY_KEY_MAX)],
    });
  }
  return key;
}

// The fingerprint of a request under its key: its method, path and JSON body with object keys sorted (the same data
// sent with another key order or spacing is the same request).
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest("hex");
}

// The JSON text of a parsed body with every object's keys sorted, written with a stack of its own: no depth overflows
// it (the recursive form it replaces, and JSON.stringify, overflowed near 10,000 levels; the API refuses bodies
// deeper than 32 levels before this anyway). The text is the one JSON.stringify gave of the body rebuilt with sorted
// keys, so that keys stored before this change keep their fingerprints: an object writes its integer-like keys
// first, in numeric order, as JavaScript orders an object's own keys.
function canonicalJson(body: unknown): string {
  let out = "";
  // Text to write as it is, or a value to write.
  const stack: ({ text: string } | { value: unknown })[] = [{ value: body }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    if ("text" in step) {
      out += step.text;
      continue;
    }
    const v = step.value;
    if (typeof v !== "object" || v === null) {
      out += JSON.stringify(v) ?? "null";
      continue;
    }
    const steps: ({ text: string } | { value: unknown })[] = [];
    if (Array.isArray(v)) {
      steps.push({ text: "[" });
      v.forEach((x, i) => steps.push(...(i > 0 ? [{ text: "," }] : []), { value: x }));
      steps.push({ text: "]" });
    } else {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(
        Object.fromEntries(
          Object.keys(o)
            .sort()
            .map((k) => [k, 0]),
        ),
      );
      steps.push({ text: "{" });
      keys.forEach((k, i) =>
        steps.push({ text: `${i > 0 ? "," : ""}${JSON.stringify(k)}:` }, { value: o[k] }),
      );
      steps.push({ text: "}" });
    }
    for (let i = steps.length - 1; i >= 0; i--) stack.push(steps[i]!);
  }
  return out;
}

// A stored answer, replayed as it was.
export interface StoredAnswer {
  status: number;
  body: string;
  location: string | null;
}

// Where a request stands with its key: it owns the key (run the write, then record or release; `token` tells its
// claim from a later one that took it over), or the answer of the first request is there to replay.
export type Claim = { owner: true; token: string } | { owner: false; answer: StoredAnswer };

// Claims the key for this request, or finds the first request's answer. Throws the 422 (another body) and, after
// waiting IDEMPOTENCY_WAIT_MS for a first request still running, the 409.
export async function claimIdempotencyKey(
  db: Queryable,
  apiKeyId: string,
  key: string,
  fingerprint: string,
  waitMs = IDEMPOTENCY_WAIT_MS,
): Promise<Claim> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    // Inserted, or taken over when the old one is past 24 h or is a dead claim: this request owns the key.
    const claimed = await db.query(
      `insert into idempotency_keys (api_key_id, key, request_hash) values ($1, $2, $3)
       on conflict (api_key_id, key) do update
          set request_hash = excluded.request_hash, claimed_at = now(), created_at = now(),
              status = null, response_body = null, location = null
        where idempotency_keys.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
           or (idempotency_keys.status is null
               and (idempotency_keys.claimed_at < now() - make_interval(secs => ${LEASE_SECONDS})
                    or idempotency_keys.claimed_at < pg_postmaster_start_time()))
       returning claimed_at::text as token`,
      [apiKeyId, key, fingerprint],
    );
    if (claimed.length > 0) return { owner: true, token: (claimed[0] as { token: string }).token };
    const [row] = await db.query<
      { request_hash: string; status: number | null } & Omit<StoredAnswer, "status">
    >(
      `select request_hash, status, response_body as body, location from idempotency_keys
        where api_key_id = $1 and key = $2`,
      [apiKeyId, key],
    );
    // Released in between (the first request failed before writing anything): try to claim it again.
    if (!row) continue;
    if (row.request_hash !== fingerprint) {
      throw new PublicApiError("PUBLIC_API_IDEMPOTENCY_KEY_REUSED", undefined, {
        details: [writeIssue("Idempotency-Key", "KEY_REUSED", "header", IDEMPOTENCY_TTL_HOURS)],
      });
    }
    if (row.status !== null)
      return { owner: false, answer: { status: row.status, body: row.body, location: row.location } };
    if (Date.now() >= deadline) throw keyInUse();
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

// Stores the answer of the request that owns the key; called inside the write's transaction, so the answer is
// committed with what it reports. A claim taken over meanwhile (its lease ran out, or the server restarted, while
// this request still ran) is no longer this request's: the 409 of a key in use, and the write rolls back, so that the
// request that took it over creates the product once. Also purges a few keys past 24 h (skipping rows another purge
// holds).
export async function recordIdempotentAnswer(
  tx: Queryable,
  apiKeyId: string,
  key: string,
  token: string,
  answer: StoredAnswer,
): Promise<void> {
  const recorded = await tx.query(
    `update idempotency_keys set status = $4, response_body = $5, location = $6
      where api_key_id = $1 and key = $2 and claimed_at = $3::timestamptz and status is null
      returning 1`,
    [apiKeyId, key, token, answer.status, answer.body, answer.location],
  );
  if (recorded.length === 0) throw keyInUse();
  await tx.query(
    `delete from idempotency_keys where (api_key_id, key) in (
       select api_key_id, key from idempotency_keys
        where created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
        limit 100 for update skip locked)`,
  );
}

// The 409 of a key whose first request has not answered yet.
function keyInUse(): PublicApiError {
  return new PublicApiError("PUBLIC_API_IDEMPOTENCY_KEY_IN_USE", undefined, {
    headers: { "Retry-After": "1" },
    details: [writeIssue("Idempotency-Key", "KEY_IN_USE", "header")],
  });
}

// Gives the key up when its request ended without an answer worth replaying (a refusal, an outage): a retry runs
// the request again. Only its own claim (`token`), never one that took it over.
export async function releaseIdempotencyKey(
  db: Queryable,
  apiKeyId: string,
  key: string,
  token: string,
): Promise<void> {
  await db.query(
    "delete from idempotency_keys where api_key_id = $1 and key = $2 and claimed_at = $3::timestamptz and status is null",
    [apiKeyId, key, token],
  );
}
