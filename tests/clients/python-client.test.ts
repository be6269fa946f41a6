// The Python client (clients/python/pca_client.py) against a real server: the API on node:http in front of a
// freshly seeded demo (PGlite, every preview feature on), reached through a proxy that records each request and
// plays faults. Python code runs as child processes and prints JSON; each case compares it with the API's own
// answers: every page of a list, the detail reads, the export (whole; cut and resumed, its end cursor the first
// request's), a 503 and a reset connection retried, the error of a bad key, the feed followed while a write is made,
// the sync loop's copy equal to a fresh export after writes and after a real 410 that made it export again, and a
// delivery of the server's webhook engine verified (and refused once tampered). The rate limit's 429 is in
// python-client-rate-limit.test.ts (a server configured with a small limit).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { pruneChanges } from "@/lib/catalog/feed/change-retention";
import { MIRRORED } from "@/lib/catalog/resources/items";
import { applyChange, CHANGE_KINDS } from "@/lib/demo/catalog-activity";
import { generateApiKey } from "@/lib/keys/format";
import { createEndpoint, endpointInputSchema } from "@/lib/webhooks/endpoints";
import { newWebhookSecret } from "@/lib/webhooks/signing";
import { readExport } from "../support/api";
import { startApiServer, type ApiServer } from "../support/api-server";
import { startReceiver, waitFor } from "../webhooks/support";
import { CLIENT_DIR, runPython, startPython, startProxy, type FaultProxy } from "./python-support";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let api: ApiServer;
let proxy: FaultProxy;

beforeAll(async () => {
  api = await startApiServer("pglite", { PUBLIC_API_PREVIEW: "all", WEBHOOKS_ALLOW_PRIVATE_URLS: "true" });
  proxy = await startProxy(api.baseUrl);
});

afterAll(async () => {
  await proxy?.close();
  await api?.close();
});

afterEach(() => {
  proxy.faults = [];
  proxy.before = undefined;
});

const globex = () => api.fx.globex;
// Python through the proxy, with globex's full key unless another is given.
const env = (extra: Record<string, string> = {}) => ({
  PCA_BASE_URL: proxy.url,
  PCA_API_KEY: globex().full,
  ...extra,
});

// The API's own answer, read directly.
async function apiGet(pathAndQuery: string, key = globex().full): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${api.baseUrl}${pathAndQuery}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as Json };
}

// Every page of a list, fetched by hand.
async function allPages(pathAndQuery: string): Promise<{ ids: string[]; total: number; pages: number }> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const { body } = await apiGet(`${pathAndQuery}&page=${page}`);
    ids.push(...body.data.map((x: Json) => x.id));
    if (page >= body.pagination.totalPages) return { ids, total: body.pagination.total, pages: page };
  }
}

const head = async (orgId: string) =>
  (
    await api.fx.db.query<{ head: string }>(
      "select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head",
      [orgId],
    )
  )[0]!.head;

const byId = (items: { id: string }[]) => Object.fromEntries(items.map((x) => [x.id, x]));

const since = (t: number) => proxy.seen.filter((s) => s.at >= t);

describe("the module", () => {
  it("passes its own tests, and keeps to Python 3.9's grammar", () => {
    const files = ["pca_client.py", "test_pca_client.py"].map((f) => path.join(CLIENT_DIR, f));
    const grammar = spawnSync("python3", [
      "-c",
      "import ast, sys\nfor f in sys.argv[1:]: ast.parse(open(f, encoding='utf-8').read(), f, feature_version=(3, 9))",
      ...files,
    ]);
    expect(grammar.status, grammar.stderr.toString()).toBe(0);
    // With python3.9 too where it runs (CI's Debian has only its python3).
    const pythons = [
      "python3",
      ...(spawnSync("python3.9", ["-c", "pass"]).status === 0 ? ["python3.9"] : []),
    ];
    for (const python of pythons) {
      const run = spawnSync(python, ["-m", "unittest", "-q", "test_pca_client"], {
        cwd: CLIENT_DIR,
        env: {
          ...({} as NodeJS.ProcessEnv),
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          PYTHONDONTWRITEBYTECODE: "1",
        },
        timeout: 60_000,
      });
      expect(run.status, `${python}:\n${run.stderr.toString()}`).toBe(0);
    }
  });
});

describe("reads", () => {
  it("list: every item of every page, in order, one request per page", async () => {
    const t = Date.now();
    const [products, attributes] = await runPython(
      `
client = Client(BASE, KEY)
out([p["id"] for p in client.list("products", perPage=37, sort="identifier.asc")])
out([a["id"] for a in client.list("attributes", per_page=3, type=["TEXT", "NUMBER"], sort="code.desc")])
`,
      env(),
    );
    const byHand = await allPages("/public/v1/products?perPage=37&sort=identifier.asc");
    expect(byHand.pages).toBeGreaterThan(5);
    expect(products).toEqual(byHand.ids);
    expect(products).toHaveLength(byHand.total);
    const listed = since(t).filter((s) => s.url.startsWith("/public/v1/products"));
    expect(listed.map((s) => s.url)).toEqual(
      Array.from(
        { length: byHand.pages },
        (_, i) => `/public/v1/products?page=${i + 1}&perPage=37&sort=identifier.asc`,
      ),
    );
    const byHandAttributes = await allPages(
      "/public/v1/attributes?perPage=3&type=TEXT,NUMBER&sort=code.desc",
    );
    expect(byHandAttributes.pages).toBeGreaterThan(1);
    expect(attributes).toEqual(byHandAttributes.ids);
  });

  it("page, get, channels: the API's answers; an unknown id is its 404", async () => {
    const first = (await apiGet("/public/v1/products?perPage=2")).body;
    const family = (await apiGet("/public/v1/families?perPage=1")).body.data[0];
    const attribute = (await apiGet("/public/v1/attributes?perPage=1")).body.data[0];
    const product = first.data[1];
    const [page, detail, fam, attr, channels, missing] = await runPython(
      `
client = Client(BASE, KEY)
out(client.page("products", perPage=2))
out(client.get("products", os.environ["PRODUCT"]))
out(client.get("families", os.environ["FAMILY"]))
out(client.get("attributes", os.environ["ATTRIBUTE"]))
out(client.channels())
try:
    client.get("products", "prd_nothing/../x")
except CatalogApiError as e:
    out(error_of(e))
`,
      env({ PRODUCT: product.id, FAMILY: family.id, ATTRIBUTE: attribute.id }),
    );
    expect(page).toEqual(first);
    expect(detail).toEqual((await apiGet(`/public/v1/products/${product.id}`)).body);
    expect(detail).toHaveProperty("values");
    expect(fam).toEqual((await apiGet(`/public/v1/families/${family.id}`)).body);
    expect(attr).toEqual((await apiGet(`/public/v1/attributes/${attribute.id}`)).body);
    const byHand = (await apiGet("/public/v1/channels?perPage=100")).body;
    expect(channels).toEqual(byHand.data);
    expect(channels.length).toBeGreaterThan(0);
    expect(missing).toMatchObject({ type: "CatalogApiError", status: 404, code: "PUBLIC_API_NOT_FOUND" });
    expect(missing.path).toBe("/public/v1/products/prd_nothing%2F..%2Fx");
  });

  it("a bad key: CatalogApiError 401 with the API's code and message, the key in none of it", async () => {
    const unknown = generateApiKey();
    const keys = { unknown, malformed: "pca_nope", revoked: globex().revoked, expired: globex().expired };
    const lines = await runPython(
      `
for name, key in json.loads(os.environ["KEYS"]).items():
    try:
        Client(BASE, key).page("products")
    except CatalogApiError as e:
        out(dict(error_of(e), name=name, leaks=key in str(e) + repr(e) + json.dumps(e.body)))
`,
      env({ KEYS: JSON.stringify(keys) }),
    );
    expect(lines.map((l) => l.name)).toEqual(Object.keys(keys));
    for (const line of lines) {
      const own = await apiGet("/public/v1/products", keys[line.name as keyof typeof keys]);
      expect(own.status).toBe(401);
      expect(line).toMatchObject({
        status: 401,
        code: own.body.code,
        message: own.body.message,
        leaks: false,
      });
      expect(line.request_id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(lines.map((l) => l.code)).toEqual([
      "PUBLIC_API_KEY_INVALID",
      "PUBLIC_API_KEY_INVALID",
      "PUBLIC_API_KEY_REVOKED",
      "PUBLIC_API_KEY_EXPIRED",
    ]);
    expect(lines[0].message).toBe("Clé API invalide.");
  });
});

describe("retries", () => {
  it("a 503 is sent again after its Retry-After", async () => {
    proxy.faults = [
      { match: /^\/public\/v1\/families/, status: 503, code: "PUBLIC_API_UNAVAILABLE", retryAfter: 1 },
    ];
    const t = Date.now();
    const [retries, page] = await runPython(
      `
retries = []
client = Client(BASE, KEY, on_retry=lambda r: retries.append([r.attempt, r.delay, r.status, error_of(r.error)]))
page = client.page("families", perPage=5)
out(retries)
out(page)
`,
      env(),
    );
    expect(retries).toHaveLength(1);
    expect(retries[0].slice(0, 3)).toEqual([1, 1, 503]);
    expect(retries[0][3]).toMatchObject({ code: "PUBLIC_API_UNAVAILABLE", retry_after: 1 });
    expect(page).toEqual((await apiGet("/public/v1/families?perPage=5")).body);
    const [refused, answered] = since(t);
    expect([refused!.status, answered!.status]).toEqual([503, 200]);
    expect(answered!.at - refused!.at).toBeGreaterThanOrEqual(990);
  });

  it("a connection reset is retried after 1 s; with no retry left, CatalogNetworkError", async () => {
    proxy.faults = [
      { match: /^\/public\/v1\/categories/, reset: true },
      { match: /^\/public\/v1\/media/, reset: true },
    ];
    const t = Date.now();
    const [retries, total, failed] = await runPython(
      `
retries = []
client = Client(BASE, KEY, on_retry=lambda r: retries.append([r.attempt, r.delay, r.status]))
total = client.page("categories")["pagination"]["total"]
out(retries)
out(total)
try:
    Client(BASE, KEY, max_retries=0).page("media")
except CatalogNetworkError as e:
    out(error_of(e))
`,
      env(),
    );
    expect(retries).toEqual([[1, 1, null]]);
    expect(total).toBe((await apiGet("/public/v1/categories")).body.pagination.total);
    expect(failed).toMatchObject({ type: "CatalogNetworkError", path: "/public/v1/media" });
    const [reset, answered] = since(t);
    expect([reset!.fault, answered!.status]).toEqual(["reset", 200]);
    expect(answered!.at - reset!.at).toBeGreaterThanOrEqual(990);
  });
});

describe("the export", { timeout: 120_000 }, () => {
  it("every item as the API exports it, then the end line (gzip on the way)", async () => {
    const t = Date.now();
    const [lines] = await runPython(`out(list(Client(BASE, KEY).export("products")))`, env());
    const fresh = await readExport("/public/v1/export/products", globex().full);
    const end = lines.at(-1);
    expect(lines.slice(0, -1)).toEqual(fresh.items);
    expect(end).toEqual({ end: true, cursor: fresh.end!.cursor, count: fresh.items.length });
    expect(end.count).toBe((await apiGet("/public/v1/products?perPage=1")).body.pagination.total);
    const [seen] = since(t);
    expect(seen!.headers!["content-encoding"]).toBe("gzip");
    expect(seen!.headers!["x-export-cursor"]).toBe(end.cursor);
  });

  it("a stream cut mid-way is resumed after the last id; the end cursor is the first request's", async () => {
    const ids = (
      await api.fx.db.query<{ id: string }>(
        "select id from products where org_id = $1 order by id limit 50",
        [globex().orgId],
      )
    ).map((r) => r.id);
    // Deleted between the two requests: in the part read before the cut, gone from the resumed snapshot.
    const deleted = ids[3]!;
    proxy.faults = [{ match: /^\/public\/v1\/export\/products$/, cut: 50 }];
    proxy.before = async (url) => {
      if (url.includes("/export/products?after="))
        await api.fx.db.query("delete from products where id = $1", [deleted]);
    };
    const t = Date.now();
    const [lines, retries, feed] = await runPython(
      `
retries = []
client = Client(BASE, KEY, on_retry=lambda r: retries.append([r.path, r.delay, r.status]))
lines = list(client.export("products"))
out(lines)
out(retries)
out(client.changes(lines[-1]["cursor"], types=["products"]))
`,
      env(),
    );
    const exports = since(t).filter((s) => s.url.startsWith("/public/v1/export/"));
    expect(exports.map((s) => s.url)).toEqual([
      "/public/v1/export/products",
      `/public/v1/export/products?after=${ids[49]}`,
    ]);
    expect(exports[0]!.fault).toBe("cut");
    const items = lines.slice(0, -1) as Json[];
    expect(items.slice(0, 50).map((p) => p.id)).toEqual(ids);
    expect(new Set(items.map((p) => p.id)).size).toBe(items.length);
    const first = exports[0]!.headers!["x-export-cursor"];
    const second = exports[1]!.headers!["x-export-cursor"];
    expect(BigInt(String(second))).toBeGreaterThan(BigInt(String(first)));
    expect(lines.at(-1)).toEqual({ end: true, cursor: first, count: items.length });
    expect(retries).toEqual([[`/public/v1/export/products?after=${ids[49]}`, 1, null]]);
    // The copy the export gave, with the feed from its cursor applied, is the catalog: the deletion comes.
    expect(feed.data).toContainEqual(
      expect.objectContaining({ op: "delete", id: deleted, type: "products" }),
    );
    const copy = new Map(items.map((p) => [p.id, p]));
    for (const e of feed.data as Json[]) {
      if (e.op === "delete") copy.delete(e.id);
      else copy.set(e.id, e.item);
    }
    const fresh = await readExport("/public/v1/export/products", globex().full);
    expect(Object.fromEntries(copy)).toEqual(byId(fresh.items));
  });
});

describe("the change feed", () => {
  it("follow: a long poll answered by a write made while it waits", async () => {
    const category = (await apiGet("/public/v1/categories?perPage=1")).body.data[0];
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    proxy.before = (url) => {
      if (url.startsWith("/public/v1/changes")) asked();
    };
    const t = Date.now();
    const run = startPython(
      `
t0 = time.monotonic()
for page in Client(BASE, KEY).follow(os.environ["AFTER"], types=["categories"], wait=20):
    out({"page": page, "seconds": time.monotonic() - t0})
    if page["data"]:
        break
`,
      env({ AFTER: await head(globex().orgId) }),
    );
    try {
      await waiting;
      await new Promise((r) => setTimeout(r, 500));
      const label = `Suivie ${randomBytes(3).toString("hex")} — été`;
      await api.fx.db.query("update categories set label = $2, updated_at = now() where id = $1", [
        category.id,
        label,
      ]);
      const [line] = await run.done();
      expect(line.page.data).toContainEqual(
        expect.objectContaining({ type: "categories", id: category.id, op: "upsert" }),
      );
      const event = line.page.data.find((e: Json) => e.id === category.id);
      expect(event.item).toEqual(
        (await apiGet(`/public/v1/categories?perPage=100`)).body.data.find((c: Json) => c.id === category.id),
      );
      expect(event.item.label).toBe(label);
      expect(line.seconds).toBeGreaterThanOrEqual(0.5);
      expect(line.seconds).toBeLessThan(15);
      expect(since(t).filter((s) => s.url.startsWith("/public/v1/changes"))).toHaveLength(1);
    } finally {
      await run.stop();
    }
  });
});

describe("webhooks", { timeout: 120_000 }, () => {
  it("a delivery of the server's engine is verified; tampered, it is refused", async () => {
    const receiver = await startReceiver();
    const { secret } = await createEndpoint(
      api.fx.db,
      api.fx.acme.orgId,
      endpointInputSchema.parse({ url: receiver.url, types: ["categories"] }),
    );
    const engine = api.fx.runtime.background.webhooks;
    try {
      await engine.start();
      const [category] = await api.fx.db.query<{ id: string }>(
        "select id from categories where org_id = $1 order by id limit 1",
        [api.fx.acme.orgId],
      );
      const label = "Catégorie « signée » — 20 €";
      await api.fx.db.query("update categories set label = $2, updated_at = now() where id = $1", [
        category!.id,
        label,
      ]);
      await waitFor(() => receiver.got.length > 0, "a delivery", 30_000);
      const got = receiver.got[0]!;
      const delivery = {
        secret,
        other: newWebhookSecret(),
        headers: got.headers,
        body: Buffer.from(got.body, "utf8").toString("base64"),
      };
      const [results] = await runPython(
        `
import base64
d = json.loads(os.environ["DELIVERY"])
body = base64.b64decode(d["body"])
h = d["headers"]
ts = int(h["webhook-timestamp"])
sig = h["webhook-signature"]
flipped = sig[:5] + ("A" if sig[5] != "A" else "B") + sig[6:]
cases = {
    "delivered": (d["secret"], h, body, None),
    "body": (d["secret"], h, body.replace("signée".encode(), "changée".encode()), None),
    "signature": (d["secret"], dict(h, **{"webhook-signature": flipped}), body, None),
    "secret": (d["other"], h, body, None),
    "timestamp": (d["secret"], dict(h, **{"webhook-timestamp": str(ts + 1)}), body, None),
    "id": (d["secret"], dict(h, **{"webhook-id": h["webhook-id"] + "0"}), body, None),
    "replayed later": (d["secret"], h, body, ts + 301),
}
results = {}
for name, (secret, headers, raw, now) in cases.items():
    try:
        results[name] = {"payload": verify_webhook(secret, headers, raw, now=now)}
    except WebhookVerificationError as e:
        results[name] = {"refused": str(e)}
out(results)
`,
        { PCA_API_KEY: "", DELIVERY: JSON.stringify(delivery) },
      );
      const payload = JSON.parse(got.body);
      expect(results.delivered).toEqual({ payload });
      expect(payload).toMatchObject({ type: "categories", id: category!.id, op: "upsert", item: { label } });
      expect(payload.cursor).toBe(got.headers["webhook-id"]);
      for (const name of ["body", "signature", "secret", "timestamp", "id", "replayed later"])
        expect(results[name], name).toHaveProperty("refused");
      expect(results["replayed later"].refused).toMatch(/timestamp/);
    } finally {
      await engine.stop();
      await receiver.close();
    }
  });
});

// Last: it prunes globex's feed.
describe("the sync loop", { timeout: 180_000 }, () => {
  it("keeps a copy equal to a fresh export through writes, and through a real 410 (exported again)", async () => {
    const org = globex().orgId;
    const run = startPython(
      `
class Printing(MemoryStore):
    def clear(self):
        super().clear()
        out({"cleared": True})
    def save_cursor(self, cursor):
        super().save_cursor(cursor)
        out({"saved": cursor})
stop = threading.Event()
def read_stdin():
    for line in sys.stdin:
        if line.strip() == "stop":
            stop.set()
threading.Thread(target=read_stdin, daemon=True).start()
store = Printing()
cursor = Client(BASE, KEY).sync(store, wait=1, stop=stop.is_set)
out({"cursor": cursor, "items": store.items})
`,
      env(),
    );
    const saved = (cursor: string, from = 0) =>
      run.waitFor(
        (l) => run.lines.indexOf(l) >= from && l.saved === cursor,
        `the cursor ${cursor} saved`,
        90_000,
      );
    try {
      await run.waitFor((l) => "saved" in l, "the copy loaded", 90_000);
      // Writes of every kind, as the product-information application makes them (plain SQL).
      for (const [i, kind] of CHANGE_KINDS.entries())
        await applyChange(api.fx.db, org, { kind, pick: i * 7 + 1, salt: 1000 + i });
      await saved(await head(org));

      // The next feed request held at the proxy while more is written and the retention prunes past its cursor.
      let held!: () => void;
      let release!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      proxy.before = async (url) => {
        if (!url.startsWith("/public/v1/changes")) return;
        held();
        await gate;
      };
      await holding;
      proxy.before = undefined;
      for (const [i, kind] of (
        ["delete", "relabel", "create", "category-relabel", "delete"] as const
      ).entries())
        await applyChange(api.fx.db, org, { kind, pick: i * 11 + 3, salt: 2000 + i });
      const top = await head(org);
      await api.fx.db.query(
        "update catalog_change_commits set at = now() - interval '40 days' where org_id = $1 and last_cursor <= $2",
        [org, top],
      );
      expect(await pruneChanges(api.fx.db, api.fx.config.CHANGES_RETENTION_DAYS)).toBeGreaterThan(0);
      const cleared = run.lines.length;
      release();
      await run.waitFor((l) => run.lines.indexOf(l) >= cleared && l.cleared === true, "the copy cleared");
      await saved(top, cleared);
      const expired = proxy.seen.filter((s) => s.status === 410);
      expect(expired).toHaveLength(1);
      expect(expired[0]!.url).toMatch(/^\/public\/v1\/changes\?after=\d+&types=products%2Cfamilies/);
      const exports = since(expired[0]!.at).filter((s) => s.url.startsWith("/public/v1/export/"));
      expect(exports.map((s) => s.url.split("/").pop())).toEqual([...MIRRORED]);

      run.send("stop");
      const final = (await run.done()).at(-1);
      expect(final.cursor).toBe(top);
      for (const resource of MIRRORED) {
        const fresh = await readExport(`/public/v1/export/${resource}`, globex().full);
        expect(fresh.items.length, resource).toBeGreaterThan(0);
        expect(final.items[resource], resource).toEqual(byId(fresh.items));
      }
    } finally {
      await run.stop();
    }
  });
});
