// The tenant isolation sweep (issue 27 item 2), on the Postgres server with every preview feature on.
// 1. Every operation of the OpenAPI document (walked, so a new operation is covered by itself) and every id it takes
//    (an id-like query parameter, the path's {id}, the write's id fields and channel-keyed or media values): with
//    acme's key, globex's real ids (read from the database) and random ids give an empty list, a 404 or a 400/422
//    naming the field, never globex's data: each answer (each line of an export, each page of the feed) is scanned
//    for every id, code and label of globex that acme does not also have.
// 2. Keys of every combination of the read scopes, with and without products:write: each GET answers 200 when the
//    key has a scope it accepts, else 403 naming them; the feed carries only the types the key may read; an export
//    needs its resource's scope; the write needs products:write.
// 3. The console across organizations (fast-check): a member, admin or owner of one organization aiming any console
//    action at an object of the other (API key, webhook endpoint and delivery, member, invitation; the organization
//    itself) through its own slug or the other's is refused (404 CONSOLE_NOT_FOUND or 403) and nothing changes.
// About 5,400 calls (some 700 of them console handlers), ~25 s on the test server. Each part fails when an organization filter is
// dropped (tried: the products' detail/export read, the channel check of the products' reads and of the write, the
// console's key lookup). It found a 500: an export cancelled while its next batch was read ahead ended its
// transaction between that batch's statements (fixed in lib/catalog/feed/export.ts, test in export.test.ts).
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as auditRoute from "@/app/api/console/orgs/[org]/audit/route";
import * as auditCsvRoute from "@/app/api/console/orgs/[org]/audit/csv/route";
import * as keysRoute from "@/app/api/console/orgs/[org]/keys/route";
import * as keyRevokeRoute from "@/app/api/console/orgs/[org]/keys/[id]/revoke/route";
import * as keyRollRoute from "@/app/api/console/orgs/[org]/keys/[id]/roll/route";
import * as membersRoute from "@/app/api/console/orgs/[org]/members/route";
import * as inviteRoute from "@/app/api/console/orgs/[org]/members/invitations/route";
import * as invitationRevokeRoute from "@/app/api/console/orgs/[org]/members/invitations/[id]/revoke/route";
import * as memberRoleRoute from "@/app/api/console/orgs/[org]/members/[id]/role/route";
import * as memberRemoveRoute from "@/app/api/console/orgs/[org]/members/[id]/remove/route";
import * as passwordResetRoute from "@/app/api/console/orgs/[org]/members/[id]/password-reset/route";
import * as leaveRoute from "@/app/api/console/orgs/[org]/members/leave/route";
import * as twoFactorRoute from "@/app/api/console/orgs/[org]/two-factor/route";
import * as webhooksRoute from "@/app/api/console/orgs/[org]/webhooks/route";
import * as webhookRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/route";
import * as webhookRollRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/roll/route";
import * as webhookTestRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/test/route";
import * as webhookReplayRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/replay/route";
import * as deliveriesRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/deliveries/route";
import * as redeliverRoute from "@/app/api/console/orgs/[org]/webhooks/[id]/deliveries/[delivery]/redeliver/route";
import { ID_PREFIX, newId } from "@/db/schema";
import { addMembership, createUser } from "@/db/users";
import { csrfTokenFor } from "@/lib/console/http";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { createRuntime } from "@/lib/runtime";
import { fetchApi, insertKey, setupApi, swapRuntime, type ApiFixture } from "../support/api";
import { signIn } from "../support/console";

/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document and the answers are walked as JSON */
type Json = any;

const PREVIEW = ["writes", "details", "changes", "export", "webhooks"] as const;
const ORIGIN = "http://api.test";
const PASSWORD = "correct horse battery";
// Query parameters that take no id: search text, sort, dates (every other string parameter without an enum does).
const NOT_ID = new Set(["q", "sort", "updatedSince"]);
// A random id of each kind, as the API makes them (no row has it), and ids of no kind.
const RANDOM_IDS = () => [
  ...Object.values(ID_PREFIX).map((prefix) => newId(prefix)),
  "x",
  randomBytes(8).toString("hex"),
  "00000000-0000-0000-0000-000000000000",
];

// Every operation of the document with every preview feature: [method, path, operation].
function operations(): Array<[string, string, Json]> {
  const doc = buildOpenApiDocument(ORIGIN, { preview: [...PREVIEW] }) as Json;
  const out: Array<[string, string, Json]> = [];
  for (const [p, item] of Object.entries<Json>(doc.paths))
    for (const [m, op] of Object.entries<Json>(item)) if (op?.responses) out.push([m.toUpperCase(), p, op]);
  return out;
}
const OPERATIONS = operations();
const NEEDS_KEY = OPERATIONS.filter(([, , op]) => op.security?.some((s: Json) => s.bearerAuth));

// The scopes an operation accepts (any one of them), as the document says.
const acceptedScopes = (op: Json): string[] => op.security.find((s: Json) => s.bearerAuth).bearerAuth;

// An id-bearing query parameter: a string without an enum or a pattern of digits, not a search, sort or date.
function idParams(op: Json): Json[] {
  return (op.parameters ?? []).filter(
    (p: Json) =>
      p.in === "query" &&
      !NOT_ID.has(p.name) &&
      p.schema?.type === "string" &&
      !p.schema.enum &&
      !p.schema.format &&
      !/^\^\[0-9\]/.test(p.schema.pattern ?? ""),
  );
}

// Every string of a JSON value, keys included, and each segment of a URL-like one.
function strings(v: Json, out: string[] = []): string[] {
  if (typeof v === "string") {
    out.push(v);
    if (/[/?&=#]/.test(v)) out.push(...v.split(/[/?&=#.]/));
  } else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object")
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      strings(x, out);
    }
  return out;
}

// The power set of a list.
const subsets = <T>(xs: readonly T[]): T[][] =>
  xs.reduce<T[][]>((acc, x) => acc.concat(acc.map((s) => [...s, x])), [[]]);

describe("tenant isolation sweep on pg", () => {
  let fx: ApiFixture;
  let writeKey: string;
  // globex's rows, by kind; and every id, code, label and text value of globex that acme does not also have.
  const globex: Record<string, string[]> = {};
  let secrets = new Set<string>();
  let mediaCategories: string[] = [];
  const acmeIds: Record<string, string> = {};
  let cases = 0;

  // The globex strings an answer carries (none of those the request sent itself).
  function leaked(answer: Json, sent: readonly string[] = []): string[] {
    const own = new Set(sent);
    return [...new Set(strings(answer))].filter((s) => secrets.has(s) && !own.has(s));
  }

  // A GET through the router: its status, its text and its JSON (an export: one value per line; with `maxLines`,
  // only that many, the rest of the stream cancelled).
  async function get(
    path: string,
    key: string,
    maxLines = Infinity,
  ): Promise<{ status: number; text: string; lines: Json[] }> {
    const res = await fetchApi(path, { key });
    cases++;
    const ndjson = (res.headers.get("content-type") ?? "").startsWith("application/x-ndjson");
    if (!ndjson) {
      const text = await res.text();
      return { status: res.status, text, lines: text ? [JSON.parse(text)] : [] };
    }
    // The body's own reader: its cancel resolves once the export has ended (its slot given back; a key streams two
    // exports at most).
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (text.split("\n").length > maxLines) {
        await reader.cancel();
        text = text.split("\n").slice(0, maxLines).join("\n");
        break;
      }
    }
    return {
      status: res.status,
      text,
      lines: text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    };
  }

  beforeAll(async () => {
    fx = await setupApi("pg", {
      PUBLIC_API_PREVIEW: "all",
      AUTH_SECRET: "i".repeat(40),
      WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
    });
    // The runtime with the database's URL, which the webhooks' job queue connects with (a redelivery starts it).
    await swapRuntime(createRuntime({ ...fx.config, DATABASE_URL: fx.databaseUrl }, fx.db));
    writeKey = await insertKey(fx.db, fx.acme.orgId, [...READ_SCOPES, WRITE_SCOPE]);
    const texts = async (orgId: string) =>
      fx.db.query<{ kind: string; v: string; id: boolean }>(
        `select 'products' as kind, id as v, true as id from products where org_id = $1
         union all select 'families', id, true from families where org_id = $1
         union all select 'attributes', id, true from attributes where org_id = $1
         union all select 'categories', id, true from categories where org_id = $1
         union all select 'media', id, true from media where org_id = $1
         union all select 'channels', id, true from channels where org_id = $1
         union all select 'text', identifier, false from products where org_id = $1
         union all select 'text', label, false from products where org_id = $1
         union all select 'text', unnest(array[code, slug, label]), false from families where org_id = $1
         union all select 'text', unnest(array[code, slug, label]), false from attributes where org_id = $1
         union all select 'text', unnest(array[slug, label]), false from categories where org_id = $1
         union all select 'text', unnest(array[slug, original_name, file_name, category]), false
           from media where org_id = $1
         union all select 'text', unnest(array[code, label]), false from channels where org_id = $1
         union all select 'text', unnest(array[code, label]), false from attribute_options where org_id = $1
         union all select 'text', value #>> '{}', false from product_values
           where org_id = $1 and jsonb_typeof(value) = 'string'`,
        [orgId],
      );
    const mine = new Set((await texts(fx.acme.orgId)).map((r) => r.v));
    const theirs = await texts(fx.globex.orgId);
    for (const r of theirs) if (r.id) (globex[r.kind] ??= []).push(r.v);
    // Short or shared strings say nothing of where they come from ("S", "Noir" in both catalogs).
    secrets = new Set(theirs.map((r) => r.v).filter((v) => v.length >= 4 && !mine.has(v)));
    mediaCategories = [
      ...new Set(
        (
          await fx.db.query<{ category: string }>("select distinct category from media where org_id = $1", [
            fx.globex.orgId,
          ])
        ).map((r) => r.category),
      ),
    ].filter((c) => !mine.has(c));
    for (const t of ["products", "families", "attributes"]) {
      const [row] = await fx.db.query<{ id: string }>(`select id from ${t} where org_id = $1 limit 1`, [
        fx.acme.orgId,
      ]);
      acmeIds[t] = row!.id;
    }
    expect(secrets.size).toBeGreaterThan(1000);
  }, 120_000);
  afterAll(async () => {
    console.log(`[tenant-isolation] ${cases} requests`);
    await fx?.close();
  });

  // A few of globex's ids of every kind (the first, the last and some between), and random ids.
  function foreignIds(): string[] {
    const pick = (xs: string[]) => [xs[0]!, xs[xs.length - 1]!, ...xs.filter((_, i) => i % 97 === 1)];
    return [...Object.values(globex).flatMap(pick), ...mediaCategories, ...RANDOM_IDS()];
  }

  it("the walk finds every operation and its ids (a new one is covered by itself)", () => {
    const names = OPERATIONS.map(([m, p]) => `${m} ${p}`);
    expect(names).toEqual(expect.arrayContaining(["GET /public/v1/changes", "POST /public/v1/products"]));
    const ids = OPERATIONS.flatMap(([m, p, op]) => idParams(op).map((x: Json) => `${m} ${p} ${x.name}`));
    expect(ids).toEqual(
      expect.arrayContaining([
        "GET /public/v1/products familyId",
        "GET /public/v1/products categoryId",
        "GET /public/v1/products channelId",
        "GET /public/v1/attributes familyId",
        "GET /public/v1/categories parentId",
        "GET /public/v1/media category",
        "GET /public/v1/export/{resource} after",
      ]),
    );
  });

  // The paths of an operation to call: each export resource for {resource}, an acme id for another {…}.
  function concretePaths(path: string, op: Json): string[] {
    const resourceParam = (op.parameters ?? []).find((p: Json) => p.in === "path" && p.schema?.enum);
    if (resourceParam)
      return resourceParam.schema.enum.map((r: string) => path.replace(`{${resourceParam.name}}`, r));
    const kind = path.split("/")[3]!;
    return [path.replace(/\{[^}]+\}/, acmeIds[kind] ?? "x")];
  }

  it.each(
    NEEDS_KEY.filter(([m, , op]) => m === "GET" && idParams(op).length).map(
      ([m, p, op]) => [`${m} ${p}`, p, op] as const,
    ),
  )("%s: another organization's ids and random ids in each id parameter", async (_name, path, op) => {
    for (const param of idParams(op)) {
      for (const concrete of concretePaths(path, op)) {
        for (const value of foreignIds()) {
          const url = `${concrete}?${new URLSearchParams({ [param.name]: value })}`;
          // An export resumed after the id: its first 100 lines (the whole export is scanned below).
          const res = await get(url, fx.acme.full, 100);
          const where = `${url} → ${res.status} ${res.text.slice(0, 200)}`;
          expect([200, 400, 404], where).toContain(res.status);
          if (res.status === 400) expect(res.lines[0].message, where).toContain(param.name);
          // A filter matches nothing; an export resumed after a foreign or random id streams acme's own items.
          if (res.status === 200 && !concrete.includes("/export/"))
            expect(res.lines[0].data, where).toEqual([]);
          for (const line of res.lines) expect(leaked(line, [value]), where).toEqual([]);
        }
      }
    }
  });

  it.each(
    NEEDS_KEY.filter(([m, p]) => m === "GET" && /\{id\}/.test(p)).map(([m, p]) => [`${m} ${p}`, p] as const),
  )("%s: every id of another organization and random ids answer 404", async (_name, path) => {
    const ids = [...Object.values(globex).flat(), ...RANDOM_IDS()];
    for (const id of ids) {
      const url = path.replace("{id}", encodeURIComponent(id));
      const res = await get(url, fx.acme.full);
      const where = `${url} → ${res.status} ${res.text.slice(0, 200)}`;
      expect(res.status, where).toBe(404);
      expect(leaked(res.lines[0], [id]), where).toEqual([]);
    }
    // The key's own organization's id is found (the 404s above are not those of a broken route).
    const kind = path.split("/")[3]!;
    expect((await get(path.replace("{id}", acmeIds[kind]!), fx.acme.full)).status).toBe(200);
  });

  it("every answer of every GET (lists, details, the whole export and the whole feed) carries no globex data", async () => {
    let items = 0;
    for (const [, path, op] of NEEDS_KEY.filter(([m]) => m === "GET")) {
      for (const concrete of concretePaths(path, op)) {
        if (path.endsWith("/changes")) continue;
        const list = !/\{/.test(path);
        // A list: its pages of 100 to the end; an export: its whole stream; a detail: itself.
        for (let page = 1; ; page++) {
          const url = list ? `${concrete}?perPage=100&page=${page}` : concrete;
          const res = await get(url, fx.acme.full);
          expect(res.status, url).toBe(200);
          for (const line of res.lines) expect(leaked(line), url).toEqual([]);
          const n =
            res.lines.length === 1 && Array.isArray(res.lines[0].data)
              ? res.lines[0].data.length
              : res.lines.length;
          items += n;
          if (!list || res.lines[0].data.length < 100) break;
        }
      }
    }
    // acme's whole catalog (its public media) went through the scan: its lists page by page, its exports line by line.
    const [rows] = await fx.db.query<{ n: number }>(
      `select (select count(*) from products where org_id = $1) + (select count(*) from families where org_id = $1)
            + (select count(*) from attributes where org_id = $1) + (select count(*) from categories where org_id = $1)
            + (select count(*) from media where org_id = $1 and is_public) + (select count(*) from channels where org_id = $1) as n`,
      [fx.acme.orgId],
    );
    expect(items).toBeGreaterThanOrEqual(2 * Number(rows!.n));
    let after = "0";
    let events = 0;
    for (;;) {
      const res = await get(`/public/v1/changes?after=${after}&limit=1000`, fx.acme.full);
      expect(res.status).toBe(200);
      const body = res.lines[0];
      for (const event of body.data) expect(leaked(event), JSON.stringify(event).slice(0, 300)).toEqual([]);
      events += body.data.length;
      after = body.cursor;
      if (!body.hasMore) break;
    }
    expect(events).toBeGreaterThan(3000);
    console.log(`[tenant-isolation] scanned ${items} list items and export lines, ${events} feed events`);
  }, 120_000);

  it("the write: another organization's family, category, channel and media ids, and random ids, are refused naming the field; nothing is created", async () => {
    const doc = buildOpenApiDocument(ORIGIN, { preview: [...PREVIEW] }) as Json;
    const request = doc.components.schemas.CreateProductRequest;
    const idFields = Object.keys(request.properties).filter((k) => /Id$/.test(k));
    expect(idFields).toEqual(["familyId", "categoryId"]);
    // An acme family with a scopable TEXT attribute and a MEDIA attribute; a valid body for it.
    const [family] = await fx.db.query<{ id: string; scopable: string; media: string }>(
      `select f.id,
              (select a.code from family_attributes fa join attributes a on a.id = fa.attribute_id
                where fa.family_id = f.id and a.is_scopable and a.type = 'TEXT' order by a.code limit 1) as scopable,
              (select a.code from family_attributes fa join attributes a on a.id = fa.attribute_id
                where fa.family_id = f.id and a.type = 'MEDIA' order by a.code limit 1) as media
         from families f where f.org_id = $1 order by (
           select count(*) from family_attributes fa join attributes a on a.id = fa.attribute_id
            where fa.family_id = f.id and (a.type = 'MEDIA' or (a.is_scopable and a.type = 'TEXT'))) desc, f.code
        limit 1`,
      [fx.acme.orgId],
    );
    const [category] = await fx.db.query<{ id: string }>(
      "select id from categories where org_id = $1 order by slug limit 1",
      [fx.acme.orgId],
    );
    const detail = await get(`/public/v1/families/${family!.id}`, fx.acme.full);
    const [acmeMedia] = await fx.db.query<{ id: string }>("select id from media where org_id = $1 limit 1", [
      fx.acme.orgId,
    ]);
    const [acmeChannel] = await fx.db.query<{ id: string }>(
      "select id from channels where org_id = $1 limit 1",
      [fx.acme.orgId],
    );
    const values: Record<string, unknown> = {};
    for (const a of detail.lines[0].attributes as Json[]) {
      if (!a.required && a.code !== family!.scopable && a.code !== family!.media && a.code !== "name")
        continue;
      const attr = (await get(`/public/v1/attributes/${a.id}`, fx.acme.full)).lines[0];
      values[a.code] = (
        {
          TEXT: `Isolation ${a.code}`,
          TEXTAREA: "Une description.",
          NUMBER: 1.5,
          PRICE: { EUR: 19.99 },
          BOOLEAN: true,
          DATE: "2026-01-31",
          SELECT: attr.options?.[0]?.code,
          MULTI_SELECT: [attr.options?.[0]?.code],
          MEDIA: acmeMedia!.id,
        } as Record<string, unknown>
      )[a.type];
    }
    let n = 0;
    const body = (over: Record<string, unknown> = {}, valuesOver: Record<string, unknown> = {}) => ({
      familyId: family!.id,
      categoryId: category!.id,
      ...over,
      values: { ...values, sku: `ISO-${Date.now().toString(36)}-${++n}`, ...valuesOver },
    });
    const post = async (b: Json, dryRun: boolean) => {
      const res = await fetchApi(`/public/v1/products${dryRun ? "?dryRun=true" : ""}`, {
        key: writeKey,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(b),
      });
      cases++;
      const text = await res.text();
      return { status: res.status, text, body: JSON.parse(text) };
    };
    // The body is valid as it is (with a channel-keyed value and a media value): the refusals below are the ids'.
    if (family!.scopable) values[family!.scopable] = { [acmeChannel!.id]: "Isolation" };
    expect((await post(body(), true)).status).toBe(200);

    const count = async () =>
      (await fx.db.query<{ n: number }>("select count(*)::int as n from products"))[0]!.n;
    const before = await count();
    const attempts: Array<{ b: Json; sent: string; field: RegExp }> = [];
    for (const id of foreignIds()) {
      for (const f of idFields)
        attempts.push({ b: body({ [f]: id }), sent: id, field: new RegExp(`^${f}$`) });
      if (family!.scopable)
        attempts.push({
          b: body({}, { [family!.scopable]: { [id]: "Fuite" } }),
          sent: id,
          field: new RegExp(`^values\\.${family!.scopable}\\.`),
        });
      if (family!.media)
        attempts.push({
          b: body({}, { [family!.media]: id }),
          sent: id,
          field: new RegExp(`^values\\.${family!.media}`),
        });
    }
    expect(family!.scopable && family!.media).toBeTruthy();
    for (const { b, sent, field } of attempts) {
      for (const dryRun of [true, false]) {
        const res = await post(b, dryRun);
        const where = `${JSON.stringify(b).slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`;
        expect([400, 404, 422], where).toContain(res.status);
        expect(
          res.body.details.some((d: Json) => field.test(d.field)),
          where,
        ).toBe(true);
        expect(leaked(res.body, [sent]), where).toEqual([]);
      }
    }
    expect(await count()).toBe(before);
  }, 120_000);

  // 2. Scopes.
  describe("keys of every scope combination get exactly what they grant", () => {
    // Every subset of the read scopes with and without products:write (a key holds at least one scope: 63 keys).
    const combos = subsets(READ_SCOPES)
      .flatMap((s) => [s, [...s, WRITE_SCOPE]])
      .filter((s) => s.length > 0);
    const keys = new Map<string[], string>();
    // The feed's first cursor of each type, minus one (a window where that type's events begin).
    const startOf: Record<string, string> = {};

    beforeAll(async () => {
      for (const s of combos) keys.set(s, await insertKey(fx.db, fx.acme.orgId, s));
      const seen = new Set<string>();
      let previous = "0";
      for (;;) {
        const { lines } = await get(`/public/v1/changes?after=${previous}&limit=1000`, fx.acme.full);
        for (const e of lines[0].data) {
          if (!seen.has(e.type)) startOf[e.type] = previous;
          seen.add(e.type);
          previous = e.cursor;
        }
        if (!lines[0].hasMore) break;
      }
    }, 60_000);

    it(`every GET and the write: 200 (or 400 on an empty write) with a scope it accepts, else 403 naming them (${combos.length} keys)`, async () => {
      for (const scopes of combos) {
        const key = keys.get(scopes)!;
        const has = new Set<string>(scopes);
        for (const [method, path, op] of NEEDS_KEY) {
          for (const concrete of concretePaths(path, op)) {
            // An export's resource: its own scope, channels any read scope (the rule; the document lists them all).
            const resource = path.includes("{resource}") ? concrete.split("/").pop()! : undefined;
            const accepted = resource && resource !== "channels" ? [`${resource}:read`] : acceptedScopes(op);
            const granted = accepted.some((s) => has.has(s));
            let status: number;
            let text: string;
            if (method === "POST") {
              const res = await fetchApi(concrete, {
                key,
                method,
                headers: { "content-type": "application/json" },
                body: "{}",
              });
              status = res.status;
              text = await res.text();
              cases++;
            } else if (resource) {
              // The export's first line is enough (the rest is cancelled).
              const res = await fetchApi(concrete, { key });
              status = res.status;
              text = status === 200 ? "" : await res.text();
              if (status === 200) await res.body?.cancel();
              cases++;
            } else {
              const url = path.endsWith("/changes") ? `${concrete}?limit=1` : concrete;
              ({ status, text } = await get(url, key));
            }
            const where = `${method} ${concrete} [${scopes.join(" ")}] → ${status} ${text.slice(0, 200)}`;
            if (granted) expect(status, where).toBe(method === "POST" ? 400 : 200);
            else {
              expect(status, where).toBe(403);
              const body = JSON.parse(text);
              expect(body.code, where).toBe("PUBLIC_API_INSUFFICIENT_SCOPE");
              for (const s of accepted) expect(body.message, where).toContain(s);
            }
          }
        }
      }
    }, 120_000);

    it("the change feed carries only the types the key's scopes let it read, and all of those", async () => {
      const types = Object.keys(startOf);
      expect(types.sort()).toEqual(["attributes", "categories", "channels", "families", "media", "products"]);
      for (const scopes of subsets(READ_SCOPES).filter((s) => s.length > 0)) {
        const key = keys.get(
          combos.find((c) => c.length === scopes.length && c.every((s, i) => s === scopes[i]))!,
        )!;
        const readable = (t: string) =>
          t === "channels" ? scopes.length > 0 : scopes.includes(`${t}:read` as never);
        for (const t of types) {
          const res = await get(`/public/v1/changes?after=${startOf[t]}&limit=200`, key);
          expect(res.status).toBe(200);
          const seen = new Set<string>(res.lines[0].data.map((e: Json) => e.type));
          for (const s of seen) expect(readable(s), `[${scopes.join(" ")}] saw ${s}`).toBe(true);
          if (readable(t)) expect(seen.has(t), `[${scopes.join(" ")}] missed ${t}`).toBe(true);
          const asked = await get(`/public/v1/changes?types=${t}&limit=1`, key);
          expect(asked.status, `[${scopes.join(" ")}] types=${t}`).toBe(readable(t) ? 200 : 403);
        }
      }
    }, 120_000);
  });

  // 3. The console.
  describe("console actions across organizations are refused", () => {
    interface Session {
      org: "acme" | "globex";
      role: "member" | "admin" | "owner";
      userId: string;
      cookie: string;
      csrf: string;
    }
    type Handler = (
      request: Request,
      context: { params: Promise<Record<string, string>> },
    ) => Promise<Response>;
    type Kind = "key" | "webhook" | "delivery" | "member" | "invitation" | "org";
    interface ConsoleAction {
      name: string;
      kind: Kind;
      method: "GET" | "POST" | "PATCH" | "DELETE";
      path: (org: string, id: string, delivery: string) => string;
      handler: Handler;
      body?: unknown;
    }
    const h = (x: unknown) => x as Handler;
    const ACTIONS: ConsoleAction[] = [
      { name: "keys list", kind: "org", method: "GET", path: (o) => `${o}/keys`, handler: h(keysRoute.GET) },
      {
        name: "keys create",
        kind: "org",
        method: "POST",
        path: (o) => `${o}/keys`,
        handler: h(keysRoute.POST),
        body: { name: "intruder", scopes: [...READ_SCOPES] },
      },
      {
        name: "key revoke",
        kind: "key",
        method: "POST",
        path: (o, id) => `${o}/keys/${id}/revoke`,
        handler: h(keyRevokeRoute.POST),
      },
      {
        name: "key roll",
        kind: "key",
        method: "POST",
        path: (o, id) => `${o}/keys/${id}/roll`,
        handler: h(keyRollRoute.POST),
        body: { graceSeconds: 0 },
      },
      {
        name: "webhooks list",
        kind: "org",
        method: "GET",
        path: (o) => `${o}/webhooks`,
        handler: h(webhooksRoute.GET),
      },
      {
        name: "webhooks create",
        kind: "org",
        method: "POST",
        path: (o) => `${o}/webhooks`,
        handler: h(webhooksRoute.POST),
        body: { url: "http://127.0.0.1:9/intruder" },
      },
      {
        name: "webhook update",
        kind: "webhook",
        method: "PATCH",
        path: (o, id) => `${o}/webhooks/${id}`,
        handler: h(webhookRoute.PATCH),
        body: { enabled: false },
      },
      {
        name: "webhook delete",
        kind: "webhook",
        method: "DELETE",
        path: (o, id) => `${o}/webhooks/${id}`,
        handler: h(webhookRoute.DELETE),
      },
      {
        name: "webhook test",
        kind: "webhook",
        method: "POST",
        path: (o, id) => `${o}/webhooks/${id}/test`,
        handler: h(webhookTestRoute.POST),
      },
      {
        name: "webhook roll",
        kind: "webhook",
        method: "POST",
        path: (o, id) => `${o}/webhooks/${id}/roll`,
        handler: h(webhookRollRoute.POST),
        body: { overlapSeconds: 0 },
      },
      {
        name: "webhook replay",
        kind: "webhook",
        method: "POST",
        path: (o, id) => `${o}/webhooks/${id}/replay`,
        handler: h(webhookReplayRoute.POST),
        body: { after: "0" },
      },
      {
        name: "webhook deliveries",
        kind: "webhook",
        method: "GET",
        path: (o, id) => `${o}/webhooks/${id}/deliveries`,
        handler: h(deliveriesRoute.GET),
      },
      {
        name: "webhook redeliver",
        kind: "delivery",
        method: "POST",
        path: (o, id, d) => `${o}/webhooks/${id}/deliveries/${d}/redeliver`,
        handler: h(redeliverRoute.POST),
      },
      {
        name: "members list",
        kind: "org",
        method: "GET",
        path: (o) => `${o}/members`,
        handler: h(membersRoute.GET),
      },
      {
        name: "member role",
        kind: "member",
        method: "POST",
        path: (o, id) => `${o}/members/${id}/role`,
        handler: h(memberRoleRoute.POST),
        body: { role: "member" },
      },
      {
        name: "member role owner",
        kind: "member",
        method: "POST",
        path: (o, id) => `${o}/members/${id}/role`,
        handler: h(memberRoleRoute.POST),
        body: { role: "owner" },
      },
      {
        name: "member remove",
        kind: "member",
        method: "POST",
        path: (o, id) => `${o}/members/${id}/remove`,
        handler: h(memberRemoveRoute.POST),
      },
      {
        name: "member password reset",
        kind: "member",
        method: "POST",
        path: (o, id) => `${o}/members/${id}/password-reset`,
        handler: h(passwordResetRoute.POST),
      },
      {
        name: "invite",
        kind: "org",
        method: "POST",
        path: (o) => `${o}/members/invitations`,
        handler: h(inviteRoute.POST),
        body: { email: "intruder@example.test", role: "owner" },
      },
      {
        name: "invitation revoke",
        kind: "invitation",
        method: "POST",
        path: (o, id) => `${o}/members/invitations/${id}/revoke`,
        handler: h(invitationRevokeRoute.POST),
      },
      {
        name: "leave",
        kind: "org",
        method: "POST",
        path: (o) => `${o}/members/leave`,
        handler: h(leaveRoute.POST),
      },
      {
        name: "two-factor required",
        kind: "org",
        method: "POST",
        path: (o) => `${o}/two-factor`,
        handler: h(twoFactorRoute.POST),
        body: { required: true },
      },
      { name: "audit", kind: "org", method: "GET", path: (o) => `${o}/audit`, handler: h(auditRoute.GET) },
      {
        name: "audit csv",
        kind: "org",
        method: "GET",
        path: (o) => `${o}/audit/csv`,
        handler: h(auditCsvRoute.GET),
      },
    ];
    const sessions: Session[] = [];
    // Each organization's objects, by kind (webhook deliveries as "endpoint/delivery").
    const objects: Record<string, Record<Kind, string[]>> = {};

    async function call(a: ConsoleAction, as: Session, org: string, id: string, delivery: string) {
      const headers = new Headers({ cookie: as.cookie });
      if (a.method !== "GET") {
        headers.set("origin", ORIGIN);
        headers.set("x-csrf-token", as.csrf);
        headers.set("content-type", "application/json");
      }
      const res = await a.handler(
        new Request(`${ORIGIN}/api/console/orgs/${a.path(org, id, delivery)}`, {
          method: a.method,
          headers,
          body: a.method === "GET" ? undefined : JSON.stringify(a.body ?? {}),
        }),
        { params: Promise.resolve({ org, id, delivery }) },
      );
      cases++;
      const text = await res.text();
      return { status: res.status, text };
    }

    // Every row a console action could change, in a stable order.
    async function snapshot() {
      const q = (sql: string) => fx.db.query(sql);
      return {
        keys: await q("select id, org_id, expires_at, revoked_at, rolled_to from api_keys order by id"),
        webhooks: await q(
          "select id, org_id, url, description, types, enabled, position, generation, updated_at from webhook_endpoints order by id",
        ),
        secrets: await q("select id, endpoint_id, expires_at from webhook_secrets order by id"),
        deliveries: await q(
          "select id, state, ordering_key, tries, attempts, updated_at from webhook_deliveries order by id",
        ),
        memberships: await q("select org_id, user_id, role from memberships order by org_id, user_id"),
        invitations: await q("select id, org_id, revoked_at, accepted_at from invitations order by id"),
        users: await q("select * from users order by id"),
        resets: await q("select count(*)::int as n from password_resets"),
        orgs: await q("select * from organizations order by id"),
        audit: await q("select count(*)::int as n from audit_events"),
      };
    }

    beforeAll(async () => {
      for (const org of ["acme", "globex"] as const) {
        const orgId = org === "acme" ? fx.acme.orgId : fx.globex.orgId;
        for (const role of ["member", "admin", "owner"] as const) {
          const email = `${role}-iso@${org}.test`;
          const user = await createUser(fx.db, { email, name: email, password: PASSWORD });
          await addMembership(fx.db, { userId: user.id, orgId, role });
          const { cookie, response } = await signIn(email, PASSWORD);
          expect(response.status).toBe(302);
          sessions.push({
            org,
            role,
            userId: user.id,
            cookie,
            csrf: csrfTokenFor(fx.config, user.id, new Headers({ cookie })),
          });
        }
        const owner = sessions.find((s) => s.org === org && s.role === "owner")!;
        // Objects made through the console as the organization's owner: a webhook endpoint, an invitation.
        const hook = await call(
          ACTIONS.find((a) => a.name === "webhooks create")!,
          owner,
          org,
          "",
          "",
        );
        expect(hook.status, hook.text).toBe(201);
        const invite = await call(
          ACTIONS.find((a) => a.name === "invite")!,
          owner,
          org,
          "",
          "",
        );
        expect(invite.status, invite.text).toBe(201);
        const endpointId = JSON.parse(hook.text).endpoint.id as string;
        const deliveryId = `whd_iso${org}`;
        await fx.db.query(
          `insert into webhook_deliveries (id, endpoint_id, org_id, event_id, event_type, object_id, op, body, state)
           values ($1, $2, $3, $1, 'test', $1, 'test', '{}', 'failed')`,
          [deliveryId, endpointId, orgId],
        );
        const ids = async (sql: string) => (await fx.db.query<{ id: string }>(sql, [orgId])).map((r) => r.id);
        objects[org] = {
          key: await ids("select id from api_keys where org_id = $1 order by id limit 5"),
          webhook: [endpointId],
          delivery: [`${endpointId}/${deliveryId}`],
          member: await ids("select user_id as id from memberships where org_id = $1"),
          invitation: await ids("select id from invitations where org_id = $1"),
          org: [""],
        };
      }
    }, 120_000);

    it("a member, admin or owner of one organization, any action on an object of the other: 404 or 403, nothing changed", async () => {
      // Drawn by name (a counterexample reads "admin of acme", "key roll"), then looked up.
      const bySession = new Map(sessions.map((x) => [`${x.role} of ${x.org}`, x]));
      const byAction = new Map(ACTIONS.map((a) => [a.name, a]));
      const input = fc.record({
        session: fc.constantFrom(...bySession.keys()),
        action: fc.constantFrom(...byAction.keys()),
        // Through the other organization's slug, or through one's own with the other's object.
        slug: fc.constantFrom("theirs", "mine"),
        pick: fc.nat(),
      });
      let before = await snapshot();
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(input, async (drawn) => {
          const { slug, pick } = drawn;
          const session = bySession.get(drawn.session)!;
          const action = byAction.get(drawn.action)!;
          const other = session.org === "acme" ? "globex" : "acme";
          const pool = objects[other]![action.kind];
          const object = pool[pick % pool.length]!;
          const [id, delivery] =
            action.kind === "delivery" ? (object.split("/") as [string, string]) : [object, ""];
          const org = slug === "theirs" ? other : session.org;
          // An organization-wide action through one's own slug is not across organizations.
          if (action.kind === "org" && slug === "mine") return;
          runs++;
          const res = await call(action, session, org, id, delivery);
          const where = `${session.role} of ${session.org} ${action.name} ${org}/${id}/${delivery} → ${res.status} ${res.text.slice(0, 200)}`;
          expect([403, 404], where).toContain(res.status);
          const code = JSON.parse(res.text).code;
          expect(
            res.status === 404 ? code === "CONSOLE_NOT_FOUND" : code === "CONSOLE_FORBIDDEN",
            where,
          ).toBe(true);
          const after = await snapshot();
          expect(after, where).toEqual(before);
          before = after;
        }),
        { numRuns: 400 },
      );
      expect(runs).toBeGreaterThan(200);
      // fast-check draws most pairs, not surely all: then every (session, action, slug, object), once each.
      let swept = 0;
      for (const session of sessions)
        for (const action of ACTIONS) {
          const other = session.org === "acme" ? "globex" : "acme";
          for (const slug of action.kind === "org" ? [other] : [other, session.org]) {
            for (const object of objects[other]![action.kind]) {
              const [id, delivery] =
                action.kind === "delivery" ? (object.split("/") as [string, string]) : [object, ""];
              const res = await call(action, session, slug, id, delivery);
              swept++;
              const where = `${session.role} of ${session.org} ${action.name} ${slug}/${id} → ${res.status} ${res.text.slice(0, 200)}`;
              expect([403, 404], where).toContain(res.status);
            }
          }
        }
      expect(await snapshot()).toEqual(before);
      console.log(`[tenant-isolation] console: ${runs} property runs, ${swept} swept calls`);
    }, 120_000);
  });
});
