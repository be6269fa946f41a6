import "server-only";
import type { Queryable } from "@/db/client";
import type { WriteIssue } from "@/lib/catalog/catalog-errors";
import { refuse, type References, type ValueRow } from "./create-product-body";
import { OPTIONS_QUOTED, writeIssue } from "./write-issues";

// The checks of a creation request that read the organization's catalog: unique values (409), option codes and
// media ids that must exist.

// The 409 detail of a SKU another product holds.
export const skuTaken = (sku: string): WriteIssue => writeIssue("values.sku", "ALREADY_EXISTS", "sku", sku);

// 409 when the SKU or the value of a uniqueValue attribute is already held by a product of the organization.
// `lock` (inside the creation's transaction): each unique value is first locked for the rest of the transaction
// (an advisory lock on its hash), so two creations racing for one value are checked one after the other: the second
// sees the first's committed row. The SKU needs no lock: the products (org_id, identifier) index refuses a double.
export async function checkUnique(
  db: Queryable,
  orgId: string,
  identifier: string,
  rows: ValueRow[],
  lock = false,
): Promise<void> {
  const [taken] = await db.query("select 1 from products where org_id = $1 and identifier = $2", [
    orgId,
    identifier,
  ]);
  if (taken) refuse("conflict", [skuTaken(identifier)]);
  const unique = rows.filter((r) => r.attribute.unique_value && r.attribute.code !== "sku");
  // Locked in one order, so that two creations holding values in common cannot wait for each other.
  const locks = [
    ...new Set(unique.map((r) => `unique:${orgId}:${r.attribute.id}:${JSON.stringify(r.value)}`)),
  ];
  if (lock && locks.length > 0)
    await db.query(
      "select pg_advisory_xact_lock(hashtext(k)) from (select k from unnest($1::text[]) k order by k) s",
      [locks.sort()],
    );
  const issues: WriteIssue[] = [];
  for (const r of unique) {
    const [hit] = await db.query(
      "select 1 from product_values where org_id = $1 and attribute_id = $2 and value = $3::jsonb limit 1",
      [orgId, r.attribute.id, JSON.stringify(r.value)],
    );
    if (hit)
      issues.push(
        writeIssue(
          `values.${r.attribute.code}${r.channelId ? `.${r.channelId}` : ""}`,
          "ALREADY_EXISTS",
          "value",
          r.attribute.code,
        ),
      );
  }
  if (issues.length > 0) refuse("conflict", issues);
}

// The option codes that are not options of their attribute (attribute_options), each refused with the first
// OPTIONS_QUOTED codes its attribute has and how many: one statement for every reference of the body.
export async function unknownOptions(
  db: Queryable,
  orgId: string,
  refs: References["options"],
): Promise<WriteIssue[]> {
  if (refs.length === 0) return [];
  const rows = await db.query<{ attribute_id: string; unknown: string[]; valid: string[]; total: number }>(
    `select u.attribute_id, u.unknown,
            array(select o.code from attribute_options o where o.org_id = $1 and o.attribute_id = u.attribute_id
                   order by o.position, o.code limit $4) as valid,
            (select count(*)::int from attribute_options o
              where o.org_id = $1 and o.attribute_id = u.attribute_id) as total
       from (select r.attribute_id, array_agg(distinct r.code) as unknown
               from unnest($2::text[], $3::text[]) as r(attribute_id, code)
              where not exists (select 1 from attribute_options o
                                 where o.org_id = $1 and o.attribute_id = r.attribute_id and o.code = r.code)
              group by r.attribute_id) u`,
    [orgId, refs.map((r) => r.attribute.id), refs.map((r) => r.code), OPTIONS_QUOTED],
  );
  const byAttribute = new Map(rows.map((r) => [r.attribute_id, { ...r, unknown: new Set(r.unknown) }]));
  return refs.flatMap((r) => {
    const a = byAttribute.get(r.attribute.id);
    return a?.unknown.has(r.code)
      ? [writeIssue(r.field, "UNKNOWN_OPTION", "option", r.code, r.attribute.code, a.valid, a.total)]
      : [];
  });
}

// The media ids that are not media of the organization.
export async function unknownMedia(
  db: Queryable,
  orgId: string,
  refs: References["media"],
): Promise<WriteIssue[]> {
  if (refs.length === 0) return [];
  const known = new Set(
    (
      await db.query<{ id: string }>("select id from media where org_id = $1 and id = any($2::text[])", [
        orgId,
        refs.map((r) => r.id),
      ])
    ).map((m) => m.id),
  );
  return refs.filter((r) => !known.has(r.id)).map((r) => writeIssue(r.field, "UNKNOWN_MEDIA", "media", r.id));
}
