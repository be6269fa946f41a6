// What the bench scripts share: rounding, percentiles and a difference's interval of their figures, a free loopback
// port, waiting for a server to answer, a product body the write preview accepts, and read keys of an organization.
import type { ChildProcess } from "node:child_process";
import net from "node:net";
import type { Queryable } from "@/db/client";
import { ID_PREFIX, newId } from "@/db/schema";
import { displayPrefix, generateApiKey, hashApiKey } from "@/lib/keys/format";
import { READ_SCOPES } from "@/lib/keys/scopes";

// x rounded to `digits` decimals.
export const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

// The value below which `p` percent of the values lie (NaN for none).
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

// The difference of two samples' means and its 95 % interval (Welch's t, two-sided).
export function welch(a: number[], b: number[]): { mean: number; low: number; high: number } {
  const stats = (xs: number[]) => {
    const m = xs.reduce((x, y) => x + y, 0) / xs.length;
    const v = xs.reduce((x, y) => x + (y - m) ** 2, 0) / (xs.length - 1);
    return { m, q: v / xs.length, n: xs.length };
  };
  const x = stats(a);
  const y = stats(b);
  const se = Math.sqrt(x.q + y.q);
  const df = (x.q + y.q) ** 2 / (x.q ** 2 / (x.n - 1) + y.q ** 2 / (y.n - 1));
  const t = tCritical95(df);
  const d = x.m - y.m;
  return { mean: round(d, 1), low: round(d - t * se, 1), high: round(d + t * se, 1) };
}

// Student's t at 97.5 % for df degrees of freedom (a table, between its rows the next lower one: wider, safe).
function tCritical95(df: number): number {
  const table: [number, number][] = [
    [1, 12.71],
    [2, 4.303],
    [3, 3.182],
    [4, 2.776],
    [5, 2.571],
    [6, 2.447],
    [7, 2.365],
    [8, 2.306],
    [9, 2.262],
    [10, 2.228],
    [12, 2.179],
    [15, 2.131],
    [20, 2.086],
    [30, 2.042],
    [60, 2.0],
    [120, 1.98],
  ];
  let t = table[0]![1];
  for (const [d, v] of table) if (df >= d) t = v;
  return Number.isFinite(df) ? t : 1.96;
}

// A TCP port on loopback that was free a moment ago.
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

// Waits until the URL answers below 500 (a server started); throws after `timeoutMs`, or at once when the server's
// process (`child`) has exited.
export async function waitFor(
  url: string,
  opts: { headers?: Record<string, string>; child?: ChildProcess; timeoutMs?: number } = {},
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (opts.child && opts.child.exitCode !== null)
      throw new Error(`the server exited (code ${opts.child.exitCode}) before answering`);
    try {
      const res = await fetch(url, { headers: opts.headers });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

// A body the write preview accepts for the organization, numbered (its sku `<skuPrefix>-<run>-<n>`): a family whose
// required attributes all have a type this knows how to fill, a category, a value for each required attribute.
export async function creatableBody(
  db: Queryable,
  orgId: string,
  skuPrefix: string,
  name = "Produit du banc",
): Promise<(n: number) => unknown> {
  const [family] = await db.query<{ id: string }>(
    `select f.id from families f where f.org_id = $1 and not exists (
       select 1 from family_attributes fa join attributes a on a.id = fa.attribute_id
        where fa.family_id = f.id and fa.is_required
          and a.type not in ('TEXT', 'TEXTAREA', 'NUMBER', 'PRICE', 'BOOLEAN', 'DATE', 'SELECT', 'MULTI_SELECT'))
     order by f.code limit 1`,
    [orgId],
  );
  const [category] = await db.query<{ id: string }>(
    "select id from categories where org_id = $1 order by slug limit 1",
    [orgId],
  );
  if (!family || !category) throw new Error("no family or category to create a product with");
  const required = await db.query<{ code: string; type: string; option: string | null }>(
    `select a.code, a.type,
            (select o.code from attribute_options o where o.attribute_id = a.id order by o.position, o.code limit 1) as option
       from family_attributes fa join attributes a on a.id = fa.attribute_id
      where fa.family_id = $1 and fa.is_required`,
    [family.id],
  );
  const fixed: Record<string, unknown> = {
    TEXT: "Banc",
    TEXTAREA: "Un banc.",
    NUMBER: 1.5,
    PRICE: { EUR: 19.99 },
    BOOLEAN: true,
    DATE: "2026-01-31",
  };
  const values: Record<string, unknown> = { name };
  for (const a of required) {
    if (a.code === "sku") continue;
    values[a.code] = a.type === "SELECT" ? a.option : a.type === "MULTI_SELECT" ? [a.option] : fixed[a.type];
  }
  const run = Date.now().toString(36);
  return (n) => ({
    familyId: family.id,
    categoryId: category.id,
    values: { ...values, sku: `${skuPrefix}-${run}-${n}` },
  });
}

// `count` fresh read keys of an organization named `name` (the organization's earlier keys of that name deleted).
export async function insertKeys(
  db: Queryable,
  orgId: string,
  name: string,
  count: number,
): Promise<string[]> {
  await db.query("delete from api_keys where org_id = $1 and name = $2", [orgId, name]);
  const keys = Array.from({ length: count }, () => generateApiKey());
  await db.query(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes)
     select k.id, $1, $6, k.prefix, k.hash, $5::text[]
       from unnest($2::text[], $3::text[], $4::text[]) as k(id, prefix, hash)`,
    [
      orgId,
      keys.map(() => newId(ID_PREFIX.apiKey)),
      keys.map(displayPrefix),
      keys.map(hashApiKey),
      READ_SCOPES,
      name,
    ],
  );
  return keys;
}
