// Row-level security on the catalog (issue 27 item 8; migration 0025, lib/catalog/row-security.ts), on PGlite and on
// the Postgres server: a statement run for a key of acme reads acme's rows only, even one that forgets its
// organization's condition or names another organization; the connecting role's reads (console, seed, background
// work) are unchanged; every table with an organization's rows is either under the policy or named here as none of
// the public API's reads.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg, type Queryable } from "@/db/client";
import { listProducts, productsQuery } from "@/lib/catalog/resources/products";
import { rowSecuritySettings } from "@/lib/catalog/row-security";
import { loadConfig } from "@/lib/config";
import { parseQuery } from "@/lib/public-api/params";
import { withPublicApi } from "@/lib/public-api/pipeline";
import { toResponse } from "@/lib/public-api/reply";
import { createRuntime } from "@/lib/runtime";
import { setupApi, swapRuntime, type ApiFixture } from "../support/api";

// Tables with an org_id that the public API never reads (keys, console, usage, webhooks): left to the connecting role.
const NOT_CATALOG = [
  "api_keys",
  "audit_events",
  "invitations",
  "memberships",
  "password_resets",
  "request_log",
  "request_log_drops",
  "usage_hours",
  "webhook_deliveries",
  "webhook_endpoints",
];
// Tables the demo fills for both organizations: each must show acme's rows only.
const FILLED = [
  "channels",
  "families",
  "attributes",
  "family_attributes",
  "attribute_options",
  "categories",
  "products",
  "product_values",
  "media",
  "media_links",
  "catalog_resource_versions",
  "catalog_change_heads",
  "catalog_change_commits",
  "catalog_changes",
];

const orgsIn = async (db: Queryable, table: string) =>
  (await db.query<{ org_id: string }>(`select distinct org_id from ${table}`)).map((r) => r.org_id).sort();

describe.each(["pglite", "pg"] as const)("row security on %s", (driver) => {
  let fx: ApiFixture;
  let policed: string[];
  beforeAll(async () => {
    fx = await setupApi(driver, { DB_ROW_SECURITY: "on" });
    policed = (
      await fx.db.query<{ tablename: string }>(
        "select tablename from pg_policies where policyname = 'catalog_reader_org' order by 1",
      )
    ).map((r) => r.tablename);
  });
  afterAll(async () => {
    await swapRuntime(undefined);
    await fx?.close();
  });

  it("puts every table with an organization's rows under the policy, but those the public API never reads", async () => {
    const withOrg = (
      await fx.db.query<{ table_name: string }>(
        `select c.table_name from information_schema.columns c
           join information_schema.tables t using (table_schema, table_name)
          where c.table_schema = 'public' and c.column_name = 'org_id' and t.table_type = 'BASE TABLE'
          order by 1`,
      )
    ).map((r) => r.table_name);
    expect(withOrg.filter((t) => !NOT_CATALOG.includes(t))).toEqual(policed);
    expect(policed).toEqual(expect.arrayContaining(FILLED));
  });

  it("shows a statement without an organization's condition the rows of the transaction's organization only", async () => {
    const scoped = fx.db.withLocalSettings(rowSecuritySettings(fx.acme.orgId));
    for (const table of FILLED) {
      // Both organizations have rows, as the connecting role sees them: the check below could fail.
      expect(await orgsIn(fx.db, table), table).toEqual([fx.acme.orgId, fx.globex.orgId].sort());
      expect(await orgsIn(scoped, table), table).toEqual([fx.acme.orgId]);
    }
    const [mine] = await fx.db.query<{ n: number }>(
      "select count(*)::int as n from products where org_id = $1",
      [fx.acme.orgId],
    );
    const [seen] = await scoped.query<{ n: number; who: string }>(
      "select count(*)::int as n, current_user as who from products",
    );
    expect(seen).toEqual({ n: mine!.n, who: "catalog_reader" });
    // The settings last for the statement's transaction only: the connection is the connecting role's again.
    expect((await fx.db.query<{ who: string }>("select current_user as who"))[0]!.who).not.toBe(
      "catalog_reader",
    );
  });

  // The server only: a second pool, without pipelining (as @vercel/postgres sends them).
  if (driver === "pg")
    it("confines it the same on a pool that does not pipeline (BEGIN with the settings, the statement, COMMIT)", async () => {
      const serial = await openPg(fx.databaseUrl!, { max: 1 });
      try {
        const scoped = serial.withLocalSettings(rowSecuritySettings(fx.acme.orgId));
        expect(await orgsIn(scoped, "products")).toEqual([fx.acme.orgId]);
        await expect(scoped.query("select id from api_keys")).rejects.toThrow(/permission denied/);
        // The failed statement's connection was dropped, not handed back inside its transaction.
        expect((await serial.query<{ who: string }>("select current_user as who"))[0]!.who).not.toBe(
          "catalog_reader",
        );
      } finally {
        await serial.close();
      }
    });

  // The server only (PGlite: one connection, one role to connect with), declared for it alone rather than skipped.
  if (driver === "pg")
    it("lets a role of its own with grants on the catalog (the product-information application's) read every row", async () => {
      const role = `rls_other_${Math.random().toString(36).slice(2, 10)}`;
      await fx.db.exec(`create role ${role}; grant select on products to ${role}`);
      try {
        const seen = await fx.db.transaction(async (tx) => {
          await tx.query(`set local role ${role}`);
          return orgsIn(tx, "products");
        });
        expect(seen).toEqual([fx.acme.orgId, fx.globex.orgId].sort());
      } finally {
        await fx.db.exec(`drop owned by ${role}; drop role ${role}`);
      }
    });

  it("shows nothing without an organization, and neither keys nor writes to catalog_reader", async () => {
    const noOrg = fx.db.withLocalSettings({ role: "catalog_reader" });
    expect(await noOrg.query("select id from products")).toEqual([]);
    const scoped = fx.db.withLocalSettings(rowSecuritySettings(fx.acme.orgId));
    await expect(scoped.query("select id from api_keys")).rejects.toThrow(/permission denied/);
    await expect(scoped.query("update products set label = 'x'")).rejects.toThrow(/permission denied/);
    // The count bound's variant (counts) is confined too.
    const counting = fx.db.withLocalSettings(rowSecuritySettings(fx.acme.orgId), {
      statementTimeoutMs: 5000,
    });
    expect(await orgsIn(counting, "products")).toEqual([fx.acme.orgId]);
  });

  it("leaves the connecting role's reads and writes as they were", async () => {
    expect(await orgsIn(fx.db, "products")).toEqual([fx.acme.orgId, fx.globex.orgId].sort());
    await fx.db.transaction(async (tx) => {
      await tx.query("update products set label = label where org_id = $1", [fx.globex.orgId]);
    });
  });

  // A handler with a query bug, through the real pipeline (key → organization → row security): one statement that
  // forgot its organization's condition, and a list read for another organization (a wrong filter).
  const buggy = withPublicApi(
    async ({ catalog }) => {
      const rows = await catalog.db.query<{ org_id: string }>("select distinct org_id from products");
      const other = await listProducts(
        catalog,
        fx.globex.orgId,
        parseQuery(new URLSearchParams(), productsQuery),
      );
      return {
        orgs: rows.map((r) => r.org_id).sort(),
        other: { rows: other.data.length, total: other.pagination.total },
      };
    },
    { scope: "products:read", query: productsQuery },
  );
  const callBuggy = async () => {
    const res = toResponse(
      await buggy(
        new Request("http://api.test/public/v1/products", {
          headers: { authorization: `Bearer ${fx.acme.full}` },
        }),
      ),
    );
    expect(res.status).toBe(200);
    return (await res.json()) as { orgs: string[]; other: { rows: number; total: number } };
  };

  it("confines a request's statements to its key's organization, however they are written", async () => {
    expect(await callBuggy()).toEqual({ orgs: [fx.acme.orgId], other: { rows: 0, total: 0 } });
  });

  it("with DB_ROW_SECURITY=off, the same bugs read the other organization (what the policy stops)", async () => {
    // The last test: the fixture's runtime is closed by this swap (afterAll installs none).
    const config = loadConfig({ PUBLIC_BASE_URL: "http://api.test", DB_ROW_SECURITY: "off" });
    await swapRuntime(createRuntime(config, fx.db));
    const seen = await callBuggy();
    expect(seen.orgs).toEqual([fx.acme.orgId, fx.globex.orgId].sort());
    expect(seen.other.rows).toBeGreaterThan(0);
  });
});
