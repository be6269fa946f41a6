// POST /public/v1/products (write preview): Idempotency-Key and ?dryRun=true, on PGlite and on the Postgres server.
// Each answer's exact body; what the database holds afterwards (one product per key, nothing for a dry run).
import { createHash, randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import {
  claimIdempotencyKey,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
  requestFingerprint,
} from "@/lib/public-api/idempotency";
import * as products from "@/app/public/v1/products/route";
import { call } from "../support/api";
import {
  insertKey,
  postProduct,
  refusal,
  setupWritePreview,
  type WriteFixture,
} from "../support/write-preview";

const JSON_TYPE = { "content-type": "application/json" };
const withKey = (key: string) => ({ ...JSON_TYPE, "idempotency-key": key });

describe.each(["pglite", "pg"] as const)("write preview on %s: Idempotency-Key and dryRun", (driver) => {
  let w: WriteFixture;
  const productCount = async (sku: string) =>
    (
      await w.f.db.query<{ n: number }>(
        "select count(*)::int as n from products where org_id = $1 and identifier = $2",
        [w.f.acme.orgId, sku],
      )
    )[0]!.n;
  const version = async () =>
    (
      await w.f.db.query<{ v: string }>("select version::text as v from catalog_versions where org_id = $1", [
        w.f.acme.orgId,
      ])
    )[0]?.v;
  const apiKeyId = async (secretKey: string) =>
    (
      await w.one<{ id: string }>("select id from api_keys where prefix = $1", [
        (await import("@/lib/keys/format")).displayPrefix(secretKey),
      ])
    ).id;

  beforeAll(async () => {
    w = await setupWritePreview(driver);
  }, 120_000);
  afterAll(async () => {
    await w?.f.close();
  });

  it("replays the first answer to a retry with the same key and body, and creates once", async () => {
    const key = randomUUID();
    const b = w.body();
    const first = await postProduct(w.writer, b, withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // The same data with another key order and spacing is the same request.
    const reordered = JSON.stringify(
      { values: b.values, categoryId: b.categoryId, familyId: b.familyId },
      null,
      2,
    );
    for (const again of [b, reordered]) {
      const retry = await postProduct(w.writer, again, withKey(key));
      expect(retry.status).toBe(201);
      expect(retry.text).toBe(first.text);
      expect(retry.headers.get("location")).toBe(first.headers.get("location"));
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(retry.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    }
    expect(await productCount(b.values.sku as string)).toBe(1);
  });

  it("reads the draft's structured-field form (a quoted string) as the same key", async () => {
    const key = randomUUID();
    const b = w.body();
    const first = await postProduct(w.writer, b, withKey(key));
    const retry = await postProduct(w.writer, b, withKey(`"${key}"`));
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.text).toBe(first.text);
  });

  it("422 PUBLIC_API_IDEMPOTENCY_KEY_REUSED for the same key with another body; nothing created", async () => {
    const key = randomUUID();
    expect((await postProduct(w.writer, w.body(), withKey(key))).status).toBe(201);
    const other = w.body();
    const res = await postProduct(w.writer, other, withKey(key));
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      refusal(
        422,
        "Unprocessable Entity",
        "PUBLIC_API_IDEMPOTENCY_KEY_REUSED",
        "Cette clé d'idempotence a déjà servi pour une autre requête : utilisez une nouvelle clé pour un nouveau corps.",
        [
          {
            field: "Idempotency-Key",
            code: "KEY_REUSED",
            message: "Cette clé a été utilisée avec un autre corps de requête dans les dernières 24 heures.",
          },
        ],
      ),
    );
    expect(await productCount(other.values.sku as string)).toBe(0);
  });

  it("409 PUBLIC_API_IDEMPOTENCY_KEY_IN_USE while the first request with the key is still running", async () => {
    const key = randomUUID();
    const b = w.body();
    // The first request's claim, as another instance holds it while it runs.
    await w.f.db.query("insert into idempotency_keys (api_key_id, key, request_hash) values ($1, $2, $3)", [
      await apiKeyId(w.writer),
      key,
      requestFingerprint("POST", "/public/v1/products", JSON.parse(JSON.stringify(b))),
    ]);
    const started = Date.now();
    const res = await postProduct(w.writer, b, withKey(key));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900); // it waited for the first one
    expect(res.status).toBe(409);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.body).toEqual(
      refusal(
        409,
        "Conflict",
        "PUBLIC_API_IDEMPOTENCY_KEY_IN_USE",
        "Une requête avec cette clé d'idempotence est encore en cours : réessayez dans quelques secondes avec la même clé.",
        [
          {
            field: "Idempotency-Key",
            code: "KEY_IN_USE",
            message: "La première requête avec cette clé n'est pas terminée.",
          },
        ],
      ),
    );
    expect(await productCount(b.values.sku as string)).toBe(0);
  });

  it("takes over a claim whose request died (lease past 60 s), and a key past 24 h", async () => {
    const keyId = await apiKeyId(w.writer);
    const dead = randomUUID();
    await w.f.db.query(
      `insert into idempotency_keys (api_key_id, key, request_hash, claimed_at)
       values ($1, $2, 'x', now() - interval '61 seconds')`,
      [keyId, dead],
    );
    expect((await postProduct(w.writer, w.body(), withKey(dead))).status).toBe(201);

    const old = randomUUID();
    const first = await postProduct(w.writer, w.body(), withKey(old));
    await w.f.db.query(
      "update idempotency_keys set created_at = now() - interval '25 hours' where api_key_id = $1 and key = $2",
      [keyId, old],
    );
    const b = w.body();
    const res = await postProduct(w.writer, b, withKey(old)); // another body: a new request after 24 h
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(first.body.id);
    expect(await productCount(b.values.sku as string)).toBe(1);
  });

  it("a claim taken over while its first request still runs is no longer that request's: its answer is not recorded (409, its write rolls back), nor is the new claim released by it", async () => {
    const keyId = await apiKeyId(w.writer);
    const key = randomUUID();
    const claim = async () => {
      const c = await claimIdempotencyKey(w.f.db, keyId, key, "h", 0);
      if (!c.owner) throw new Error("not the owner");
      return c.token;
    };
    const first = await claim();
    // A claim's token is its time, to the millisecond (claimed_at is timestamptz(3)): on a quiet machine the whole
    // take-over fits in one (CI saw both tokens equal), which a real one, 60 s or a server restart later, never does.
    await new Promise((r) => setTimeout(r, 5));
    // Its lease runs out while it still runs; a retry takes the key over.
    await w.f.db.query(
      "update idempotency_keys set claimed_at = claimed_at - interval '61 seconds' where api_key_id = $1 and key = $2",
      [keyId, key],
    );
    const second = await claim();
    expect(second).not.toBe(first);
    const answer = { status: 201, body: "{}", location: null };
    const late = w.f.db.transaction((tx) => recordIdempotentAnswer(tx, keyId, key, first, answer));
    await expect(late).rejects.toMatchObject({ code: "PUBLIC_API_IDEMPOTENCY_KEY_IN_USE" });
    await releaseIdempotencyKey(w.f.db, keyId, key, first);
    const [row] = await w.f.db.query<{ status: number | null }>(
      "select status from idempotency_keys where api_key_id = $1 and key = $2",
      [keyId, key],
    );
    expect(row).toEqual({ status: null });
    await w.f.db.transaction((tx) => recordIdempotentAnswer(tx, keyId, key, second, answer));
    const [done] = await w.f.db.query<{ status: number | null }>(
      "select status from idempotency_keys where api_key_id = $1 and key = $2",
      [keyId, key],
    );
    expect(done).toEqual({ status: 201 });
  });

  it("purges keys past 24 h as creations go", async () => {
    const keyId = await apiKeyId(w.writer);
    await w.f.db.query(
      `insert into idempotency_keys (api_key_id, key, request_hash, status, response_body, created_at)
       values ($1, 'stale-key', 'x', 201, '{}', now() - interval '2 days')`,
      [keyId],
    );
    expect((await postProduct(w.writer, w.body(), withKey(randomUUID()))).status).toBe(201);
    const left = await w.f.db.query("select 1 from idempotency_keys where key = 'stale-key'", []);
    expect(left).toEqual([]);
  });

  it("records nothing for a refusal: the corrected request runs under the same key", async () => {
    const key = randomUUID();
    const bad = w.body({ [w.outsider]: "x" });
    expect((await postProduct(w.writer, bad, withKey(key))).status).toBe(422);
    const good = w.body();
    const res = await postProduct(w.writer, good, withKey(key));
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });

  it("keeps keys per API key: the same Idempotency-Key under another API key is another request", async () => {
    const other = await insertKey(w.f, w.f.acme.orgId, [...READ_SCOPES, WRITE_SCOPE]);
    const key = randomUUID();
    const a = await postProduct(w.writer, w.body(), withKey(key));
    const b = await postProduct(other, w.body(), withKey(key));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
  });

  it("400 PUBLIC_API_INVALID_HEADER for a malformed Idempotency-Key", async () => {
    for (const bad of ["", "a b", "x".repeat(256), "clé", '""']) {
      const res = await postProduct(w.writer, w.body(), withKey(bad));
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body).toEqual(
        refusal(400, "Bad Request", "PUBLIC_API_INVALID_HEADER", "En-tête de requête invalide.", [
          {
            field: "Idempotency-Key",
            code: "INVALID_IDEMPOTENCY_KEY",
            message:
              "Clé d'idempotence invalide : de 1 à 255 caractères ASCII visibles attendus (un UUID, par exemple).",
          },
        ]),
      );
    }
  });

  // Issue 21, row 13: a dry run skipped the header's checks (an empty or 256-character key: 200 on a dry run).
  it("dryRun=true checks the Idempotency-Key like a creation: the same 400 for a malformed key", async () => {
    for (const bad of ["", "a b", "x".repeat(256), "clé", '""']) {
      const b = w.body();
      const creation = await postProduct(w.writer, b, withKey(bad));
      const dry = await postProduct(w.writer, b, withKey(bad), "?dryRun=true");
      expect(dry.status, JSON.stringify(bad)).toBe(400);
      expect({ ...dry.body, requestId: "<id>" }).toEqual({ ...creation.body, requestId: "<id>" });
      expect(dry.body.details).toEqual([expect.objectContaining({ field: "Idempotency-Key" })]);
      expect(await productCount(b.values.sku as string)).toBe(0);
    }
  });

  it("dryRun=true: 200 with what would be created, nothing written, the catalog version unchanged", async () => {
    const b = w.body({ name: "Essai à blanc" });
    const before = await version();
    const total = (await call("/public/v1/products?perPage=1", { key: w.f.acme.full })).body.pagination.total;
    const res = await postProduct(w.writer, b, JSON_TYPE, "?dryRun=true");
    expect(res.status).toBe(200);
    expect(res.headers.get("location")).toBeNull();
    expect(res.body).toEqual({
      dryRun: true,
      familyId: w.familyId,
      categoryId: w.categoryId,
      status: "draft",
      identifier: b.values.sku,
      label: "Essai à blanc",
      values: b.values,
    });
    expect(await productCount(b.values.sku as string)).toBe(0);
    expect(await version()).toBe(before);
    expect((await call("/public/v1/products?perPage=1", { key: w.f.acme.full })).body.pagination.total).toBe(
      total,
    );
    // The same body then creates, with a 201.
    expect((await postProduct(w.writer, b)).status).toBe(201);
  });

  it("dryRun=true runs every check: 400, 404, 422 and 409 as the creation would", async () => {
    const dry = (b: unknown) => postProduct(w.writer, b, JSON_TYPE, "?dryRun=true");
    expect((await dry({ ...w.body(), colour: "x" })).body.code).toBe("PUBLIC_API_INVALID_BODY");
    expect((await dry(w.body({}, { familyId: w.otherFamilyId }))).body.code).toBe(
      "PUBLIC_API_FAMILY_NOT_FOUND",
    );
    expect((await dry(w.body({ [w.outsider]: "x" }))).body.code).toBe("PUBLIC_API_UNPROCESSABLE");
    const taken = w.body();
    expect((await postProduct(w.writer, taken)).status).toBe(201);
    const res = await dry(taken);
    expect(res.status).toBe(409);
    expect(res.body.details).toEqual([
      expect.objectContaining({ field: "values.sku", code: "ALREADY_EXISTS" }),
    ]);
  });

  it("dryRun takes only true or false, and records nothing under an Idempotency-Key", async () => {
    const res = await postProduct(w.writer, w.body(), JSON_TYPE, "?dryRun=yes");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("PUBLIC_API_INVALID_QUERY");
    expect(res.body.message).toContain("dryRun");
    const key = randomUUID();
    const b = w.body();
    expect((await postProduct(w.writer, b, withKey(key), "?dryRun=true")).status).toBe(200);
    const created = await postProduct(w.writer, b, withKey(key));
    expect(created.status).toBe(201);
    expect(created.headers.get("idempotent-replayed")).toBeNull();
  });

  it("405 for PUT, PATCH and DELETE names POST in Allow while the preview is on, as the preflight does", async () => {
    for (const method of ["PUT", "PATCH", "DELETE"] as const) {
      const res = await products[method](new Request("http://api.test/public/v1/products", { method }));
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
      expect(await res.json()).toEqual({
        statusCode: 405,
        error: "Method Not Allowed",
        code: "PUBLIC_API_METHOD_NOT_ALLOWED",
        message: `Méthode ${method} non autorisée sur cette ressource. Méthodes autorisées : GET, HEAD, POST.`,
        requestId: expect.any(String),
      });
    }
    // Issue 21, row 14: the preflight's Allow was "GET, HEAD, POST, OPTIONS", the 405's "GET, HEAD, POST".
    const pre = await products.OPTIONS();
    expect(pre.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(pre.headers.get("access-control-allow-methods")).toBe("GET, HEAD, POST, OPTIONS");
  });
});

// The fingerprint's canonical form is written without recursion (issue 21, row 2): the same text as the recursive
// form it replaced (keys stored before keep their fingerprints), for any JSON value.
describe("requestFingerprint", () => {
  const recursive = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(recursive)
      : typeof v === "object" && v !== null
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, recursive((v as Record<string, unknown>)[k])]),
          )
        : v;
  const before = (body: unknown) =>
    createHash("sha256")
      .update(`POST /public/v1/products\n${JSON.stringify(recursive(body))}`)
      .digest("hex");

  it("is the fingerprint of the body with its keys sorted, as before, for any JSON value", () => {
    const keyed = fc.dictionary(
      fc.oneof(fc.string(), fc.nat().map(String), fc.constant("__proto__")),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), keyed), (v) => {
        const body = JSON.parse(JSON.stringify(v)) as unknown;
        expect(requestFingerprint("POST", "/public/v1/products", body)).toBe(before(body));
      }),
      { numRuns: 2_000 },
    );
    expect(requestFingerprint("POST", "/p", { b: 1, a: [{ d: 2, c: 3 }] })).toBe(
      requestFingerprint("POST", "/p", { a: [{ c: 3, d: 2 }], b: 1 }),
    );
  });
});
