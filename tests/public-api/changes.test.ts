// Preview feature `changes` through the router (issue 24): GET /public/v1/changes on PGlite and on the Postgres
// server, the changes made with plain SQL as the product-information application makes them: the shared security
// cases, each organization's events only, the types a key's scopes read, paging through the feed, a delete, long
// polling woken by a commit on another connection (notifications, and the polling fallback), the cursors refused
// (410 past the retention, 400 past the head); off, the 404 of an unknown path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changesPageSchema } from "@/lib/catalog/resources/schemas";
import { pruneChanges } from "@/lib/catalog/feed/change-retention";
import { loadConfig } from "@/lib/config";
import { generateApiKey } from "@/lib/keys/format";
import { publicApi } from "@/lib/public-api/router";
import { createRuntime, type Runtime } from "@/lib/runtime";
import { call, expectError, setupApi, swapRuntime, type ApiFixture } from "../support/api";
import { insertKey } from "../support/write-preview";

const PREVIEW = "details,changes,export";
// A page of the feed as the tests read it (an item's fields are each resource's).
type Page = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: { cursor: string; type: string; id: string; op: string; item: any }[];
  cursor: string;
  hasMore: boolean;
};

describe.each(["pglite", "pg"] as const)("preview `changes` on %s", (driver) => {
  let fx: ApiFixture;
  // A product, a category and a media of each organization (ids read with SQL, none hard-coded).
  const ids: Record<"acme" | "globex", { product: string; category: string; media: string }> = {
    acme: { product: "", category: "", media: "" },
    globex: { product: "", category: "", media: "" },
  };

  const head = async (org: "acme" | "globex") =>
    (
      await fx.db.query<{ head: string }>(
        "select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head",
        [fx[org].orgId],
      )
    )[0]!.head;
  const changes = (query: string, key = fx.acme.full) =>
    call<Page & { message?: string; error?: string }>(`/public/v1/changes?${query}`, { key });
  // Every event after a cursor, in pages of `limit`, checking each page's shape.
  async function pages(after: string, limit: number, key = fx.acme.full, extra = ""): Promise<Page["data"]> {
    const out: Page["data"] = [];
    for (let cursor = after, n = 0; n < 1000; n++) {
      const res = await changes(`after=${cursor}&limit=${limit}${extra}`, key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      changesPageSchema.parse(res.body);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      out.push(...res.body.data);
      cursor = res.body.cursor;
      if (!res.body.hasMore) return out;
    }
    throw new Error("the feed never ended");
  }

  // Runs fn with another runtime installed, then a new one as the fixture's (the one swapped out was closed).
  async function withRuntime(rt: Runtime, fn: () => Promise<void>): Promise<void> {
    await swapRuntime(rt);
    try {
      await fn();
    } finally {
      fx.runtime = createRuntime(fx.config, fx.db);
      await swapRuntime(fx.runtime);
    }
  }

  beforeAll(async () => {
    fx = await setupApi(driver, { PUBLIC_API_PREVIEW: PREVIEW });
    for (const org of ["acme", "globex"] as const) {
      const one = async (sql: string) => (await fx.db.query<{ id: string }>(sql, [fx[org].orgId]))[0]!.id;
      ids[org].product = await one("select id from products where org_id = $1 order by id limit 1");
      // A category and a media that few products show: renaming them notes those products too.
      ids[org].category = await one(
        `select c.id from categories c join products p on p.category_id = c.id where c.org_id = $1
          group by c.id order by count(*), c.id limit 1`,
      );
      ids[org].media = await one(
        "select id from media where org_id = $1 and is_public and link_count > 0 order by link_count, id limit 1",
      );
    }
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("serves each change made with SQL as an event, the object whole as it is now; private, no-store", async () => {
    const from = await head("acme");
    await fx.db.query("update products set label = 'Libellé du flux' where id = $1", [ids.acme.product]);
    const res = await changes(`after=${from}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("etag")).toBeNull();
    const page = changesPageSchema.parse(res.body);
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({
      cursor: String(BigInt(from) + 1n),
      type: "products",
      id: ids.acme.product,
      op: "upsert",
      item: { id: ids.acme.product, label: "Libellé du flux" },
    });
    // A product is served whole, as its detail answers it.
    const detail = await call(`/public/v1/products/${ids.acme.product}`, { key: fx.acme.full });
    expect(page.data[0]!.item).toEqual(detail.body);
    expect(page).toMatchObject({ cursor: String(BigInt(from) + 1n), hasMore: false });
  });

  it("from the start (no `after`): the seed's events, each object once, in cursor order", async () => {
    const res = await changes("limit=5");
    expect(res.status).toBe(200);
    expect(res.body.data.map((e) => e.cursor)).toEqual(["1", "2", "3", "4", "5"]);
    expect(res.body).toMatchObject({ cursor: "5", hasMore: true });
  });

  it("pages through the events with small limits: each once, in order", async () => {
    const from = await head("acme");
    // Events in five transactions: a product relabelled three times, its category renamed (the category and its
    // products), a media retitled (the media and the products it is linked to).
    await fx.db.query("update products set label = 'un' where id = $1", [ids.acme.product]);
    await fx.db.query("update categories set label = 'Catégorie du flux' where id = $1", [ids.acme.category]);
    await fx.db.query("update products set label = 'deux' where id = $1", [ids.acme.product]);
    await fx.db.query("update media set original_name = 'titre du flux' where id = $1", [ids.acme.media]);
    await fx.db.query("update products set label = 'trois' where id = $1", [ids.acme.product]);
    const to = BigInt(await head("acme"));
    // Pages of one: every event, cursors from+1 … head without a gap.
    const every = await pages(from, 1);
    expect(every.map((e) => BigInt(e.cursor))).toEqual(
      Array.from({ length: Number(to - BigInt(from)) }, (_, i) => BigInt(from) + BigInt(i + 1)),
    );
    expect(every.filter((e) => e.type === "categories").map((e) => e.id)).toEqual([ids.acme.category]);
    expect(every.filter((e) => e.type === "media").map((e) => e.id)).toEqual([ids.acme.media]);
    expect(every.filter((e) => e.id === ids.acme.product).length).toBeGreaterThanOrEqual(3);
    // Each object's last event.
    const last = new Map(every.map((e) => [`${e.type}/${e.id}`, e.cursor]));
    for (const limit of [2, 3, 1000]) {
      const paged = await pages(from, limit);
      const cursors = paged.map((e) => BigInt(e.cursor));
      for (let i = 1; i < cursors.length; i++)
        expect(cursors[i]! > cursors[i - 1]!, `limit ${limit}`).toBe(true);
      const known = new Set(every.map((e) => e.cursor));
      for (const e of paged) expect(known.has(e.cursor)).toBe(true);
      // A page serves an object once, its last event in the page: the last event of each object is never skipped.
      const served = new Set(paged.map((e) => e.cursor));
      for (const [object, cursor] of last)
        expect(served.has(cursor), `${object} at limit ${limit}`).toBe(true);
    }
    const whole = await pages(from, 1000);
    expect(whole.filter((e) => e.id === ids.acme.product).map((e) => e.item.label)).toEqual(["trois"]);
  });

  it("`types`: only the events of those resources; the cursor passes the others", async () => {
    const from = await head("acme");
    await fx.db.query("update categories set label = 'Catégorie filtrée' where id = $1", [ids.acme.category]);
    await fx.db.query("update products set label = 'filtré' where id = $1", [ids.acme.product]);
    const res = await changes(`after=${from}&types=categories`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e) => `${e.type}/${e.id}`)).toEqual([`categories/${ids.acme.category}`]);
    expect(res.body.data[0]!.item).toMatchObject({ id: ids.acme.category, label: "Catégorie filtrée" });
    expect(res.body).toMatchObject({ cursor: await head("acme"), hasMore: false });
    const both = await changes(`after=${from}&types=products&types=categories,products`);
    expect(new Set(both.body.data.map((e) => e.type))).toEqual(new Set(["products", "categories"]));
  });

  it("a delete is served as op delete with item null, and so is a media made private", async () => {
    const from = await head("acme");
    const [p] = await fx.db.query<{ id: string }>(
      `select p.id from products p where p.org_id = $1
          and not exists (select 1 from media_links l where l.product_id = p.id)
        order by p.id desc limit 1`,
      [fx.acme.orgId],
    );
    await fx.db.query("delete from products where id = $1", [p!.id]);
    await fx.db.query("update media set is_public = false where id = $1", [ids.acme.media]);
    const res = await changes(`after=${from}`);
    const byId = new Map(res.body.data.map((e) => [e.id, e]));
    expect(byId.get(p!.id)).toMatchObject({ type: "products", op: "delete", item: null });
    expect(byId.get(ids.acme.media)).toMatchObject({ type: "media", op: "delete", item: null });
    await fx.db.query("update media set is_public = true where id = $1", [ids.acme.media]);
  });

  it("never shows another organization's events; its cursors past this head are a 400", async () => {
    const [a, g] = [await head("acme"), await head("globex")];
    await fx.db.query("update products set label = 'globex seul' where id = $1", [ids.globex.product]);
    expect((await changes(`after=${a}`)).body).toEqual({ data: [], cursor: a, hasMore: false });
    const theirs = await changes(`after=${g}`, fx.globex.full);
    expect(theirs.body.data.map((e) => e.id)).toEqual([ids.globex.product]);
    // Every event of acme's whole feed is one of acme's objects.
    const all = await pages("0", 1000);
    const globexIds = new Set(
      (
        await fx.db.query<{ id: string }>(
          `select id from products where org_id = $1 union all select id from categories where org_id = $1
           union all select id from families where org_id = $1 union all select id from media where org_id = $1
           union all select id from attributes where org_id = $1 union all select id from channels where org_id = $1`,
          [fx.globex.orgId],
        )
      ).map((r) => r.id),
    );
    expect(all.length).toBeGreaterThan(0);
    for (const e of all) expect(globexIds.has(e.id), e.id).toBe(false);
    // A cursor past acme's head (globex's feed is longer, or made up): not a cursor of this organization.
    const past = String(BigInt(a) + 1000n);
    const res = await changes(`after=${past}`);
    expectError(res, 400, "PUBLIC_API_INVALID_QUERY");
    expect(res.body.message).toContain("« after »");
    expect(res.body.message).toContain(past);
  });

  describe("scopes", () => {
    it("a key sees the events of the resources its scopes read; channels with any read scope", async () => {
      const from = await head("acme");
      await fx.db.query("update categories set label = 'Vue sans produits' where id = $1", [
        ids.acme.category,
      ]);
      const seen = await pages(from, 1000, fx.acme.without.products);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.map((e) => e.type)).not.toContain("products");
      expect(seen.map((e) => e.type)).toContain("categories");
      const onlyMedia = await insertKey(fx, fx.acme.orgId, ["media:read"]);
      const [channel] = await fx.db.query<{ id: string }>(
        "select id from channels where org_id = $1 limit 1",
        [fx.acme.orgId],
      );
      const before = await head("acme");
      await fx.db.query("update channels set label = 'Canal du flux' where id = $1", [channel!.id]);
      const res = await changes(`after=${before}`, onlyMedia);
      expect(res.body.data.map((e) => `${e.type}/${e.id}`)).toEqual([`channels/${channel!.id}`]);
    });

    it("403 naming the scope for a type the key may not read; 403 for a key without a read scope", async () => {
      const res = await changes("types=categories,media", fx.acme.without.media);
      expectError(res, 403, "PUBLIC_API_INSUFFICIENT_SCOPE");
      expect(res.body.message).toContain("« media:read »");
      const writer = await insertKey(fx, fx.acme.orgId, ["products:write"]);
      const none = await changes("", writer);
      expectError(none, 403, "PUBLIC_API_INSUFFICIENT_SCOPE");
      expect(none.body.message).toContain("« products:read »");
      expect((await changes("types=channels", fx.acme.without.media)).status).toBe(200);
    });
  });

  describe("the shared security cases", () => {
    it("401 without a key, with an unknown key, an expired or a revoked one", async () => {
      expectError(await call("/public/v1/changes"), 401, "PUBLIC_API_KEY_MISSING");
      expectError(await changes("", generateApiKey()), 401, "PUBLIC_API_KEY_INVALID");
      expectError(await changes("", fx.acme.expired), 401, "PUBLIC_API_KEY_EXPIRED");
      expectError(await changes("", fx.acme.revoked), 401, "PUBLIC_API_KEY_REVOKED");
    });

    it.each([
      ["after=abc", "after"],
      ["after=-1", "after"],
      ["after=1.5", "after"],
      ["after=1234567890123456", "after"],
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["wait=31", "wait"],
      ["wait=-1", "wait"],
      ["types=products,nothing", "types"],
      ["per_page=5", "per_page"],
      ["after=1&after=2", "after"],
    ])("400 for %s, naming the parameter", async (query, name) => {
      const res = await changes(query);
      expectError(res, 400, "PUBLIC_API_INVALID_QUERY");
      expect(res.body.message).toContain(`« ${name} »`);
    });

    it("a cursor is read as a number: leading zeros change nothing", async () => {
      const h = await head("acme");
      expect((await changes(`after=000${h}`)).body).toEqual({ data: [], cursor: h, hasMore: false });
    });

    it("HEAD answers like GET without a body; OPTIONS is the preflight; POST is a 405", async () => {
      const head = await call("/public/v1/changes", { key: fx.acme.full, method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.body).toBeUndefined();
      expect((await call("/public/v1/changes", { method: "OPTIONS" })).status).toBe(204);
      const post = await call("/public/v1/changes", { key: fx.acme.full, method: "POST" });
      expectError(post, 405, "PUBLIC_API_METHOD_NOT_ALLOWED");
      expect(post.headers.get("allow")).toBe("GET, HEAD");
    });

    it("429 once a key spends its quota", async () => {
      const config = loadConfig({
        PUBLIC_BASE_URL: "http://api.test",
        PUBLIC_API_PREVIEW: PREVIEW,
        RATE_LIMIT_REQUESTS: "3",
      });
      await withRuntime(createRuntime(config, fx.db), async () => {
        const statuses = [];
        for (let i = 0; i < 5; i++) statuses.push((await changes("")).status);
        expect(statuses).toEqual([200, 200, 200, 429, 429]);
      });
    });
  });

  describe("long polling", () => {
    // A request of the feed with its own signal (the client may go away).
    const fetchChanges = async (query: string, signal?: AbortSignal) => {
      const res = await publicApi.fetch(
        new Request(`http://api.test/public/v1/changes?${query}`, {
          headers: { authorization: `Bearer ${fx.acme.full}` },
          signal,
        }),
      );
      return { status: res.status, body: (await res.json()) as Page };
    };
    // A waiting request, and a change committed with SQL on another connection once it waits.
    async function wokenBy(label: string): Promise<Page> {
      const from = await head("acme");
      const waiting = fetchChanges(`after=${from}&wait=5`);
      await new Promise((r) => setTimeout(r, 300));
      await fx.db.query("update products set label = $2 where id = $1", [ids.acme.product, label]);
      const res = await waiting;
      expect(res.status).toBe(200);
      return res.body;
    }

    it("wait=5 answers with the event of a write committed after the request began", async () => {
      const page = await wokenBy("écrit pendant l'attente");
      expect(page.data.map((e) => e.id)).toEqual([ids.acme.product]);
      expect(page.data[0]!.item.label).toBe("écrit pendant l'attente");
      expect(page.cursor).toBe(await head("acme"));
      // Woken by the notification of its commit (LISTEN), not by polling.
      expect((await fx.runtime.catalog()).signals?.receiving).toBe(true);
    });

    it("without notifications (a driver that cannot listen), the waiting request polls the head", async () => {
      const rt = createRuntime(fx.config, { ...fx.db, listen: undefined });
      await withRuntime(rt, async () => {
        const page = await wokenBy("trouvé en interrogeant la tête");
        expect(page.data.map((e) => e.id)).toEqual([ids.acme.product]);
        expect(page.data[0]!.item.label).toBe("trouvé en interrogeant la tête");
        expect((await rt.catalog()).signals?.receiving).toBe(false);
      });
    });

    if (driver === "pg")
      it("after the listening connection is lost, a waiting request still gets the event", async () => {
        await wokenBy("avant la coupure");
        const killed = await fx.db.query<{ ok: boolean }>(
          `select pg_terminate_backend(pid) as ok from pg_stat_activity
            where datname = current_database() and query ilike 'listen%' and pid <> pg_backend_pid()`,
        );
        expect(killed.length).toBe(1);
        const page = await wokenBy("après la coupure");
        expect(page.data[0]!.item.label).toBe("après la coupure");
      });

    it("an empty wait=1 answers an empty page with the same cursor", async () => {
      const h = await head("acme");
      const res = await changes(`after=${h}&wait=1`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [], cursor: h, hasMore: false });
    });

    it("a wait ends as soon as the client goes away", async () => {
      const h = await head("acme");
      const abort = new AbortController();
      const started = Date.now();
      const waiting = fetchChanges(`after=${h}&wait=30`, abort.signal);
      setTimeout(() => abort.abort(), 200);
      const res = await waiting;
      expect(res.body).toEqual({ data: [], cursor: h, hasMore: false });
      expect(Date.now() - started).toBeLessThan(15_000);
    });
  });

  // Last: it prunes acme's feed.
  it("a cursor below the retention's floor is a 410 (re-export); at or after it, the feed goes on", async () => {
    const from = await head("acme");
    await fx.db.query("update products set label = 'gardé' where id = $1", [ids.acme.product]);
    // Every event up to `from` committed 40 days ago: the retention (30 days) prunes them.
    await fx.db.query(
      "update catalog_change_commits set at = now() - interval '40 days' where org_id = $1 and last_cursor <= $2",
      [fx.acme.orgId, from],
    );
    expect(await pruneChanges(fx.db, fx.config.CHANGES_RETENTION_DAYS)).toBe(Number(from));
    const expired = await changes(`after=${BigInt(from) - 1n}`);
    expectError(expired, 410, "PUBLIC_API_CURSOR_EXPIRED");
    expect(expired.body.error).toBe("Gone");
    expect(expired.body.message).toContain("GET /public/v1/export/{resource}");
    expectError(await changes(""), 410, "PUBLIC_API_CURSOR_EXPIRED");
    const kept = await changes(`after=${from}`);
    expect(kept.status).toBe(200);
    expect(kept.body.data.map((e) => e.item?.label)).toEqual(["gardé"]);
    // Globex's feed was not pruned.
    expect((await changes("limit=1", fx.globex.full)).status).toBe(200);
  });
});

describe("preview `changes` off", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi("pglite", { PUBLIC_API_PREVIEW: "details" });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("its path is the 404 of an unknown path, whatever the method", async () => {
    const unknown = await call("/public/v1/nothing-here", { key: fx.acme.full });
    for (const method of ["GET", "HEAD", "OPTIONS", "POST"]) {
      const res = await call("/public/v1/changes?wait=5", { key: fx.acme.full, method });
      expect(res.status, method).toBe(404);
      if (method !== "HEAD") expect(res.body.code).toBe(unknown.body.code);
    }
  });
});
