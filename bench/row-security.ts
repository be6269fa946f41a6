// Row security's cost per statement: the page-1 scenarios' one statement per request (the version read of a list
// whose page is in the page cache, count-cache.ts's orgVersions) and a first page of products, timed one after the
// other on a Postgres server: plainly (one round trip), under row security on a pool without pipelining (BEGIN with
// the settings, the statement, COMMIT: three round trips) and on a pipelined pool (the three written at once: one
// round trip). A micro-measurement of latency, not of throughput: `BENCH_AB=rls npm run bench:ab` measures what it
// costs page 1.
//
//   DATABASE_URL=postgres://… npx tsx --conditions=react-server bench/row-security.ts
//   (BENCH_RLS_STATEMENTS: 3000 per variant and round)
//
// It creates a database of its own on the server (migrated, the demo seeded) and drops it at the end.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openPg, type Queryable } from "@/db/client";
import { migrate } from "@/db/migrate";
import { seedDemo } from "@/db/seed";
import { orgVersions } from "@/lib/catalog/list/count-cache";
import { rowSecuritySettings } from "@/lib/catalog/row-security";
import { percentile, round } from "./support";

const N = Number(process.env.BENCH_RLS_STATEMENTS ?? 3000);
const ROUNDS = 3;
const base = process.env.DATABASE_URL;
if (!base) throw new Error("DATABASE_URL: the Postgres server to measure on");

const PAGE_SQL = `select p.id, p.identifier, p.label, p.status,
  (select f.label from families f where f.org_id = p.org_id and f.id = p.family_id) as family_label
  from products p where p.org_id = $1 order by p.identifier, p.id limit 20`;

async function time(
  db: Queryable,
  statement: (db: Queryable) => Promise<unknown>,
): Promise<{ meanUs: number; p50Us: number; p99Us: number }> {
  for (let i = 0; i < 200; i++) await statement(db); // warm: plans, connections
  const t: number[] = [];
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    const s = performance.now();
    await statement(db);
    t.push(performance.now() - s);
  }
  const total = performance.now() - start;
  return {
    meanUs: round((total / N) * 1000, 0),
    p50Us: round(percentile(t, 50) * 1000, 0),
    p99Us: round(percentile(t, 99) * 1000, 0),
  };
}

const name = `bench_rls_${randomBytes(4).toString("hex")}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create database "${name}"`);
const url = new URL(base);
url.pathname = `/${name}`;
try {
  const plain = await openPg(url.toString(), { max: 1 });
  const piped = await openPg(url.toString(), { max: 1, pipeline: true });
  await migrate(plain);
  const { orgs } = await seedDemo(plain);
  const orgId = orgs[0]!.orgId;
  const variants: [string, Queryable][] = [
    ["plain", plain],
    ["row security, 3 round trips", plain.withLocalSettings(rowSecuritySettings(orgId))],
    ["row security, pipelined", piped.withLocalSettings(rowSecuritySettings(orgId))],
  ];
  const statements: [string, (db: Queryable) => Promise<unknown>][] = [
    ["version read", (db) => orgVersions(db, orgId)],
    ["products page 1", (db) => db.query(PAGE_SQL, [orgId])],
  ];
  for (const [label, statement] of statements) {
    for (let r = 1; r <= ROUNDS; r++) {
      for (const [variant, db] of variants) {
        const m = await time(db, statement);
        console.log(
          `${label} | round ${r} | ${variant} | mean ${m.meanUs} µs | p50 ${m.p50Us} µs | p99 ${m.p99Us} µs`,
        );
      }
    }
  }
  await plain.close();
  await piped.close();
} finally {
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
}
