import { createPool, type VercelPool } from "@vercel/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, openPg, openPglite, openVercel, type Database, type Queryable } from "@/db/client";
import { loadConfig } from "@/lib/config";
import { migrate } from "@/db/migrate";
import { createTestDatabase, serverDatabaseUrl } from "../support/servers";
import { startVercelRelay, type VercelRelay } from "../support/vercel-relay";

// The same fixture and the same queries through the three drivers (PGlite in memory, node-postgres,
// @vercel/postgres through a local WebSocket relay and HTTP /sql shim): the rows must be identical,
// value types included (Date, jsonb, text[], booleans, null), so that code written against one runs on all.

type DriverName = Database["driver"];
const DRIVERS: DriverName[] = ["pglite", "pg", "vercel"];
const ORG = "org_drv";
const OTHER_ORG = "org_other";

const dbs = {} as Record<DriverName, Database>;
const drops: Array<() => Promise<void>> = [];
let relay: VercelRelay;
let httpPool: VercelPool | undefined;
let vercelUrl: string;

// Inserted through each driver's parameter path; timestamps carry milliseconds, labels carry accents.
async function insertFixture(db: Queryable): Promise<void> {
  const q = (sql: string, params: unknown[]) => db.query(sql, params);
  for (const [id, slug, name] of [
    [ORG, "acme", "Acmé Équipements"],
    [OTHER_ORG, "globex", "Globex"],
  ]) {
    await q("insert into organizations (id, slug, name) values ($1, $2, $3)", [id, slug, name]);
  }
  await q("insert into channels (id, org_id, code, label) values ($1, $2, $3, $4)", [
    "chn_web",
    ORG,
    "ecommerce",
    "E-commerce",
  ]);
  const families = [
    ["fam_chairs", "chaises", "chairs", "Chaises", "2024-03-01T10:00:00.101Z"],
    ["fam_creams", "cremes-glacees", "creams", "Crèmes glacées", "2024-03-02T10:00:00.202Z"],
    ["fam_eclairs", "eclairs", "eclairs", "Éclairs", "2024-03-03T10:00:00.303Z"],
    ["fam_apples", "abricots", "apricots", "abricots", "2024-03-04T10:00:00.404Z"],
  ];
  for (const [id, slug, code, label, at] of families) {
    await q(
      "insert into families (id, org_id, slug, code, label, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $6)",
      [id, ORG, slug, code, label, at],
    );
  }
  await q("insert into families (id, org_id, slug, code, label) values ($1, $2, $3, $4, $5)", [
    "fam_other",
    OTHER_ORG,
    "creme",
    "creme",
    "Crème d'ailleurs",
  ]);
  await q(
    "insert into attributes (id, org_id, slug, code, label, type, is_scopable, unique_value) values ($1, $2, $3, $4, $5, $6, $7, $8)",
    ["att_name", ORG, "nom", "name", "Nom", "TEXT", true, false],
  );
  await q(
    "insert into attributes (id, org_id, slug, code, label, type, is_scopable, unique_value) values ($1, $2, $3, $4, $5, $6, $7, $8)",
    ["att_price", ORG, "prix", "price", "Prix", "PRICE", false, true],
  );
  await q(
    "insert into categories (id, org_id, slug, label, parent_id, is_master, position, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $8)",
    ["cat_root", ORG, "maison", "Maison", null, true, 0, "2024-04-01T00:00:00.001Z"],
  );
  await q(
    "insert into categories (id, org_id, slug, label, parent_id, is_master, position, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $8)",
    ["cat_dairy", ORG, "cremerie", "Crèmerie", "cat_root", false, 1, "2024-04-02T00:00:00.999Z"],
  );
  const products = [
    ["prd_1", "CR-001", "Crème brûlée", "published", "fam_creams", "cat_dairy", "2024-05-01T08:30:15.123Z"],
    ["prd_2", "EC-002", "éclair au café", "draft", "fam_eclairs", "cat_dairy", "2024-05-02T08:30:15.456Z"],
    ["prd_3", "ZZ-003", "Zèbre en peluche", "archived", "fam_chairs", "cat_root", "2024-05-03T08:30:15.789Z"],
    ["prd_4", "AB-004", "abricot sec", "published", "fam_apples", "cat_root", "2024-05-03T08:30:15.789Z"],
    ["prd_5", "CH-005", "Chaise CRÈME", "published", "fam_chairs", "cat_root", "2024-05-05T23:59:59.999Z"],
  ];
  for (const [id, identifier, label, status, family, category, at] of products) {
    await q(
      `insert into products (id, org_id, identifier, label, status, family_id, category_id, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [id, ORG, identifier, label, status, family, category, at],
    );
  }
  await q(
    `insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value, updated_at)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
    [
      ORG,
      "prd_1",
      "att_name",
      true,
      "chn_web",
      JSON.stringify({
        fr: "Crème brûlée maison",
        tags: ["dessert", "froid"],
        note: 4.5,
        vegan: false,
        extra: null,
      }),
      "2024-05-01T08:30:15.120Z",
    ],
  );
  await q(
    `insert into product_values (org_id, product_id, attribute_id, value, updated_at) values ($1, $2, $3, $4::jsonb, $5)`,
    [
      ORG,
      "prd_1",
      "att_price",
      JSON.stringify({ amount: "12.50", currency: "EUR" }),
      "2024-05-01T08:30:15.121Z",
    ],
  );
  await q(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes, created_at, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      "key_1",
      ORG,
      "Intégration ERP",
      "pk_live_ab12",
      "a".repeat(64),
      ["products:read", "families:read", "media:read"],
      "2024-06-01T12:00:00.007Z",
      null,
    ],
  );
  await q(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes, created_at, expires_at, revoked_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      "key_2",
      ORG,
      "Ancienne clé",
      "pk_live_cd34",
      "b".repeat(64),
      ["categories:read"],
      "2024-06-02T12:00:00.070Z",
      "2025-01-01T00:00:00.000Z",
      "2024-07-01T00:00:00.700Z",
    ],
  );
}

interface Case {
  name: string;
  sql: string;
  params?: unknown[];
  /** What the rows must be (on every driver); otherwise only "the same everywhere and not empty". */
  expected?: unknown[];
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

const CASES: Case[] = [
  {
    name: "ordering by label_sort (accent- and case-folded, collate C)",
    sql: "select id, label, label_sort from families where org_id = $1 order by label_sort, id",
    params: [ORG],
    expected: [
      { id: "fam_apples", label: "abricots", label_sort: "abricots" },
      { id: "fam_chairs", label: "Chaises", label_sort: "chaises" },
      { id: "fam_creams", label: "Crèmes glacées", label_sort: "cremes glacees" },
      { id: "fam_eclairs", label: "Éclairs", label_sort: "eclairs" },
    ],
  },
  {
    name: "accent-insensitive substring search on catalog_fold (trigram-indexed column)",
    sql: `select id, label from products
           where org_id = $1 and search like '%' || catalog_fold($2) || '%'
           order by label_sort, id`,
    params: [ORG, "CRÈME"],
    expected: [
      { id: "prd_5", label: "Chaise CRÈME" },
      { id: "prd_1", label: "Crème brûlée" },
    ],
  },
  {
    name: "search on a literal pattern, scoped to the organization",
    sql: "select id from families where org_id = $1 and search like '%creme%' order by id",
    params: [ORG],
    expected: [{ id: "fam_creams" }],
  },
  {
    name: "jsonb extraction and whole jsonb values",
    sql: `select product_id, attribute_id, channel_id, value, value->>'fr' as fr, value->'tags' as tags,
                 (value->>'note')::float8 as note, (value->>'vegan')::boolean as vegan, value->'extra' as extra,
                 value->>'missing' as missing, jsonb_typeof(value) as kind
            from product_values where org_id = $1 order by attribute_id`,
    params: [ORG],
    expected: [
      {
        product_id: "prd_1",
        attribute_id: "att_name",
        channel_id: "chn_web",
        value: {
          fr: "Crème brûlée maison",
          tags: ["dessert", "froid"],
          note: 4.5,
          vegan: false,
          extra: null,
        },
        fr: "Crème brûlée maison",
        tags: ["dessert", "froid"],
        note: 4.5,
        vegan: false,
        extra: null,
        missing: null,
        kind: "object",
      },
      {
        product_id: "prd_1",
        attribute_id: "att_price",
        channel_id: null,
        value: { amount: "12.50", currency: "EUR" },
        fr: null,
        tags: null,
        note: null,
        vegan: null,
        extra: null,
        missing: null,
        kind: "object",
      },
    ],
  },
  {
    name: "text[] columns, any() and a text[] parameter",
    sql: `select id, scopes, cardinality(scopes)::int as n, $2 = any(scopes) as has_products
            from api_keys where org_id = $1 and scopes && $3::text[] order by id`,
    params: [ORG, "products:read", ["products:read", "categories:read"]],
    expected: [
      { id: "key_1", scopes: ["products:read", "families:read", "media:read"], n: 3, has_products: true },
      { id: "key_2", scopes: ["categories:read"], n: 1, has_products: false },
    ],
  },
  {
    name: "timestamps formatted with milliseconds in UTC, and as Date values",
    sql: `select id, to_char(updated_at at time zone 'UTC', ${ISO}) as updated_at, updated_at as raw
            from products where org_id = $1 order by updated_at desc, id`,
    params: [ORG],
    expected: [
      ["prd_5", "2024-05-05T23:59:59.999Z"],
      ["prd_3", "2024-05-03T08:30:15.789Z"],
      ["prd_4", "2024-05-03T08:30:15.789Z"],
      ["prd_2", "2024-05-02T08:30:15.456Z"],
      ["prd_1", "2024-05-01T08:30:15.123Z"],
    ].map(([id, at]) => ({ id, updated_at: at, raw: new Date(at!) })),
  },
  {
    name: "nullable timestamps",
    sql: `select id, expires_at, revoked_at, to_char(revoked_at at time zone 'UTC', ${ISO}) as revoked
            from api_keys where org_id = $1 order by id`,
    params: [ORG],
    expected: [
      { id: "key_1", expires_at: null, revoked_at: null, revoked: null },
      {
        id: "key_2",
        expires_at: new Date("2025-01-01T00:00:00.000Z"),
        revoked_at: new Date("2024-07-01T00:00:00.700Z"),
        revoked: "2024-07-01T00:00:00.700Z",
      },
    ],
  },
  {
    name: "count(*)::int, grouped and windowed",
    sql: `select status, count(*)::int as n, (sum(count(*)) over ())::int as total
            from products where org_id = $1 group by status order by status`,
    params: [ORG],
    expected: [
      { status: "archived", n: 1, total: 5 },
      { status: "draft", n: 1, total: 5 },
      { status: "published", n: 3, total: 5 },
    ],
  },
  {
    name: "booleans",
    sql: `select a.id, a.is_scopable, a.unique_value, a.type = 'PRICE' as is_price
            from attributes a where org_id = $1 order by id`,
    params: [ORG],
    expected: [
      { id: "att_name", is_scopable: true, unique_value: false, is_price: false },
      { id: "att_price", is_scopable: false, unique_value: true, is_price: true },
    ],
  },
  {
    name: "null parentId, matched with a null parameter too",
    sql: `select id, parent_id, is_master, position from categories
           where org_id = $1 and parent_id is not distinct from $2 order by id`,
    params: [ORG, null],
    expected: [{ id: "cat_root", parent_id: null, is_master: true, position: 0 }],
  },
  {
    name: "a page of a join, with limit/offset parameters and a windowed total",
    sql: `select p.id, p.identifier, p.status, f.code as family, c.slug as category, c.parent_id,
                 count(*) over ()::int as total
            from products p
            join families f on f.org_id = p.org_id and f.id = p.family_id
            join categories c on c.org_id = p.org_id and c.id = p.category_id
           where p.org_id = $1
           order by p.updated_at desc, p.id
           limit $2 offset $3`,
    params: [ORG, 2, 1],
    expected: [
      {
        id: "prd_3",
        identifier: "ZZ-003",
        status: "archived",
        family: "chairs",
        category: "maison",
        parent_id: null,
        total: 5,
      },
      {
        id: "prd_4",
        identifier: "AB-004",
        status: "published",
        family: "apricots",
        category: "maison",
        parent_id: null,
        total: 5,
      },
    ],
  },
  {
    name: "an id from another organization matches nothing",
    sql: "select id from families where org_id = $1 and id = $2",
    params: [ORG, "fam_other"],
    expected: [],
  },
];

beforeAll(async () => {
  const server = serverDatabaseUrl();
  const [pgDb, vercelDb] = await Promise.all([
    createTestDatabase("drv_pg"),
    createTestDatabase("drv_vercel"),
  ]);
  drops.push(pgDb.drop, vercelDb.drop);
  relay = await startVercelRelay(server);
  dbs.pglite = await openPglite("memory://");
  dbs.pg = await openPg(pgDb.url, 4);
  dbs.vercel = await openVercel(relay.connectionStringFor(vercelDb.url), 4, {
    wsProxy: relay.wsProxy,
    httpEndpoint: relay.httpEndpoint,
  });
  for (const driver of DRIVERS) {
    await migrate(dbs[driver]);
    await dbs[driver].transaction((tx) => insertFixture(tx));
  }
  vercelUrl = relay.connectionStringFor(vercelDb.url);
  httpPool = createPool({ connectionString: vercelUrl });
});

afterAll(async () => {
  await httpPool?.end();
  await Promise.allSettled(DRIVERS.map((d) => dbs[d]?.close()));
  await relay?.close();
  await Promise.allSettled(drops.map((drop) => drop()));
});

describe("the same queries on PGlite, node-postgres and @vercel/postgres", () => {
  it("opened each driver for real (vercel through the relay's WebSocket)", () => {
    expect(DRIVERS.map((d) => dbs[d].driver)).toEqual(DRIVERS);
    expect(relay.stats.wsConnections).toBeGreaterThan(0);
  });

  it.each(CASES)("$name", async ({ sql, params, expected }) => {
    const [pglite, pg, vercel] = await Promise.all(DRIVERS.map((d) => dbs[d].query(sql, params)));
    expect(pg).toStrictEqual(pglite);
    expect(vercel).toStrictEqual(pglite);
    if (expected) expect(pglite).toStrictEqual(expected);
  });

  it("differs only where known: bigint is a number on PGlite and a string on the server drivers (hence count(*)::int)", async () => {
    const sql = "select count(*) as n from products where org_id = $1";
    const [pglite, pg, vercel] = await Promise.all(DRIVERS.map((d) => dbs[d].query(sql, [ORG])));
    expect(pglite).toStrictEqual([{ n: 5 }]);
    expect(pg).toStrictEqual([{ n: "5" }]);
    expect(vercel).toStrictEqual([{ n: "5" }]);
  });

  it("pool.sql (Neon's HTTP path) returns the same rows through the /sql shim", async () => {
    const before = relay.stats.httpQueries;
    const result = await httpPool!.sql`
      select p.id, p.label, p.updated_at, to_char(p.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, v.value, k.scopes,
             c.parent_id, c.is_master, count(*) over ()::int as total
        from products p
        join categories c on c.org_id = p.org_id and c.id = p.category_id
        left join product_values v on v.product_id = p.id and v.attribute_id = 'att_name'
        left join api_keys k on k.id = 'key_1'
       where p.org_id = ${ORG} and p.search like '%' || catalog_fold(${"crème"}) || '%'
       order by p.id`;
    expect(relay.stats.httpQueries).toBe(before + 1);
    const viaWebSocket = await dbs.vercel.query(
      `select p.id, p.label, p.updated_at, to_char(p.updated_at at time zone 'UTC', ${ISO}) as at, v.value, k.scopes,
              c.parent_id, c.is_master, count(*) over ()::int as total
         from products p
         join categories c on c.org_id = p.org_id and c.id = p.category_id
         left join product_values v on v.product_id = p.id and v.attribute_id = 'att_name'
         left join api_keys k on k.id = 'key_1'
        where p.org_id = $1 and p.search like '%' || catalog_fold($2) || '%'
        order by p.id`,
      [ORG, "crème"],
    );
    expect(result.rows.map((r) => ({ ...r }))).toStrictEqual(viaWebSocket);
    expect(result.rows.map((r) => [r.id, r.at, r.total])).toEqual([
      ["prd_1", "2024-05-01T08:30:15.123Z", 2],
      ["prd_5", "2024-05-05T23:59:59.999Z", 2],
    ]);
    expect(result.rows[0]!.updated_at).toEqual(new Date("2024-05-01T08:30:15.123Z"));
    expect(result.rows[0]!.scopes).toEqual(["products:read", "families:read", "media:read"]);
    expect(result.rows[1]!.value).toBeNull();
  });

  it("pool.sql reports a Postgres error with its SQLSTATE through the shim", async () => {
    await expect(httpPool!.sql`select 1 / ${0}::int as x`).rejects.toMatchObject({ code: "22012" });
    await expect(httpPool!.sql`select * from no_such_table`).rejects.toMatchObject({ code: "42P01" });
  });
});

describe("openDatabase() with POSTGRES_URL and the local relay settings", () => {
  it("selects @vercel/postgres and reaches the database through VERCEL_POSTGRES_WS_PROXY", async () => {
    const config = loadConfig({
      POSTGRES_URL: vercelUrl,
      VERCEL_POSTGRES_WS_PROXY: relay.wsProxy,
      VERCEL_POSTGRES_HTTP_ENDPOINT: relay.httpEndpoint,
    });
    expect(config.dbDriver).toBe("vercel");
    const before = relay.stats.wsConnections;
    const db = await openDatabase(config);
    try {
      expect(db.driver).toBe("vercel");
      expect(await db.query("select id from families where org_id = $1 order by label_sort", [ORG])).toEqual(
        ["fam_apples", "fam_chairs", "fam_creams", "fam_eclairs"].map((id) => ({ id })),
      );
      expect(relay.stats.wsConnections).toBeGreaterThan(before);
    } finally {
      await db.close();
    }
  });
});

describe.each(DRIVERS)("transactions on %s", (driver) => {
  const count = async (id: string) =>
    (
      await dbs[driver].query<{ n: number }>("select count(*)::int as n from organizations where id = $1", [
        id,
      ])
    )[0]?.n;

  it("commits what the callback wrote and returns its result", async () => {
    const result = await dbs[driver].transaction(async (tx) => {
      await tx.query("insert into organizations (id, slug, name) values ($1, $2, $3)", [
        "org_tx_ok",
        "tx-ok",
        "Ok",
      ]);
      return (await tx.query<{ n: number }>("select count(*)::int as n from organizations"))[0]?.n;
    });
    expect(result).toBe(3);
    expect(await count("org_tx_ok")).toBe(1);
  });

  it("rolls back everything when the callback throws", async () => {
    await expect(
      dbs[driver].transaction(async (tx) => {
        await tx.query("insert into organizations (id, slug, name) values ($1, $2, $3)", [
          "org_tx_ko",
          "tx-ko",
          "Ko",
        ]);
        await tx.exec("update families set label = 'changed' where org_id = 'org_drv'");
        expect((await tx.query("select id from organizations where id = 'org_tx_ko'")).length).toBe(1);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await count("org_tx_ko")).toBe(0);
    const labels = await dbs[driver].query(
      "select label from families where org_id = $1 and label = 'changed'",
      [ORG],
    );
    expect(labels).toEqual([]);
  });

  it("rolls back when a statement fails, and the connection stays usable", async () => {
    await expect(
      dbs[driver].transaction(async (tx) => {
        await tx.query("insert into organizations (id, slug, name) values ($1, $2, $3)", [
          "org_tx_err",
          "tx-err",
          "E",
        ]);
        await tx.query("insert into organizations (id, slug, name) values ($1, $2, $3)", [
          "org_tx_err",
          "dup",
          "E",
        ]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await count("org_tx_err")).toBe(0);
    // Several rounds, so that a pooled connection left inside an aborted transaction would be picked up again.
    for (let i = 0; i < 5; i++) expect(await count(ORG)).toBe(1);
  });
});
