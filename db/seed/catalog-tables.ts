import type { Database } from "@/db/client";

// The catalog tables of an organization, each with its org_id column.
export const CATALOG_TABLES = [
  "channels",
  "families",
  "attributes",
  "attribute_options",
  "family_attributes",
  "categories",
  "products",
  "product_values",
  "media",
  "media_links",
] as const;

// Row counts of every catalog table for one organization.
export async function countCatalog(db: Database, orgId: string): Promise<Record<string, number>> {
  const sql = CATALOG_TABLES.map(
    (t) => `select '${t}' as t, count(*)::int as n from ${t} where org_id = $1`,
  ).join(" union all ");
  const rows = await db.query<{ t: string; n: number }>(sql, [orgId]);
  return Object.fromEntries(rows.map((r) => [r.t, r.n]));
}

// Deletes what a failed seed left of an organization (the organization itself when the seed created it).
export async function removeCatalog(db: Database, orgId: string, withOrganization: boolean): Promise<void> {
  if (withOrganization) {
    await db.query("delete from organizations where id = $1", [orgId]);
    return;
  }
  for (const table of [...CATALOG_TABLES].reverse())
    await db.query(`delete from ${table} where org_id = $1`, [orgId]);
}
