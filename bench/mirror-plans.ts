// The plans of the statements that mirror a catalog (issue 24): an export's batch of products read whole (the
// products, their values, their MEDIA values' files, their linked media) and a page of the change feed, captured
// from the library's own calls and run again under EXPLAIN (ANALYZE, BUFFERS) on the bench database.
// `npx tsx --conditions=react-server bench/mirror-plans.ts` with BENCH_DATABASE_URL (default: the bench's server),
// BENCH_TAG (a file suffix); writes bench/results/<date>-mirror-plans[-tag].md.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { openPg, type Queryable } from "@/db/client";
import { readChanges } from "@/lib/catalog/feed/changes";
import { documentView, readProductLines } from "@/lib/catalog/feed/product-documents";
import { catalogContext } from "@/lib/catalog/context";
import { MIRRORED } from "@/lib/catalog/resources/items";
import { readProductDetails } from "@/lib/catalog/resources/product-detail";

const url = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:55440/catalog_bench";
// The bench server's base URL (PUBLIC_BASE_URL's default on port 3410): its products' documents are built for it.
const BASE_URL = process.env.BENCH_BASE_URL ?? "http://localhost:3410";
const db = await openPg(url, 2);
const [org] = await db.query<{ id: string; slug: string }>(
  `select o.id, o.slug from organizations o
    where o.id = (select org_id from products group by 1 order by count(*) desc limit 1)`,
);
if (!org) throw new Error("no organization with products");

// Each statement a call sends, with its parameters; answered for real so the call goes on.
const captured: { sql: string; params: readonly unknown[] }[] = [];
const spy: Queryable = {
  query: async <R>(sql: string, params: readonly unknown[] = []) => {
    captured.push({ sql, params });
    return db.query<R>(sql, params);
  },
};
const ctx = { ...catalogContext(db), db: spy };
const [middle] = await db.query<{ id: string }>(
  "select id from products where org_id = $1 order by id offset 500000 limit 1",
  [org.id],
);
const sections: string[] = [];
async function explain(title: string, call: () => Promise<unknown>): Promise<void> {
  captured.length = 0;
  await call();
  sections.push(`# ${title}`);
  for (const { sql, params } of captured) {
    const plan = await db.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${sql}`, params);
    sections.push("```sql", sql.trim(), "```", "```", ...plan.map((r) => r["QUERY PLAN"]), "```");
  }
}
await explain(
  "An export's batch read anew: 1,000 products whole after an id in the middle of the million",
  () => readProductDetails(ctx, org, { after: middle!.id, limit: 1000 }, BASE_URL),
);
await explain(
  "An export's batch from products' documents (migration 0019): the view (the mark, the events after it), then 1,000 documents",
  async () =>
    readProductLines(
      ctx,
      org,
      { after: middle!.id, limit: 1000 },
      BASE_URL,
      await documentView(ctx.db, org.id, BASE_URL, "0"),
    ),
);
const [head] = await db.query<{ head: string }>(
  "select head::text from catalog_change_heads where org_id = $1",
  [org.id],
);
const after = String(Math.max(0, Number(head?.head ?? 0) - 50_000));
await explain(`A page of the change feed: 1,000 events after cursor ${after} (head ${head?.head ?? 0})`, () =>
  readChanges(ctx, org, { after, types: MIRRORED, limit: 1000 }, BASE_URL),
);
await db.close();
const stamp = new Date().toISOString().slice(0, 10);
const tag = process.env.BENCH_TAG ? `-${process.env.BENCH_TAG}` : "";
const file = path.resolve("bench/results", `${stamp}-mirror-plans${tag}.md`);
writeFileSync(
  file,
  `# EXPLAIN (ANALYZE, BUFFERS) of the statements that mirror a catalog (${new Date().toISOString()})\n\n${sections.join("\n")}\n`,
);
console.log(`[mirror-plans] ${file}`);
