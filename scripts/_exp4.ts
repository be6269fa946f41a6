import { openPg } from "@/db/client";
import { readProductDetails } from "@/lib/catalog/product-detail";
const db = await openPg("postgres://postgres@127.0.0.1:55440/catalog_bench", 4);
const [org] = await db.query<{ id: string }>("select org_id as id from products group by 1 order by count(*) desc limit 1");
const spy = { query: async (sql: string, params: unknown[]) => { const r = await db.query<{ "QUERY PLAN": string }>("explain (analyze, buffers) " + sql, params); console.log(r.map((x) => x["QUERY PLAN"]).join("\n")); return []; } };
await readProductDetails({ db: spy } as never, { id: org!.id, slug: "x" }, { after: "", limit: 1000 }, "http://x");
await db.close();
