import type { Executor } from "@/db/client";
import { newId, PRODUCT_STATUSES } from "@/db/schema";
import type { AppliedChange, Change, ChangeKind } from "./change-model";

// The SQL each kind of change writes, as the product-information application writes it.

// One row among those of a query, chosen by `pick` (the query's rows in a stable order); undefined when it has none.
async function pickRow<R>(
  tx: Executor,
  sql: string,
  params: unknown[],
  pick: number,
): Promise<R | undefined> {
  const n = params.length + 1;
  const [row] = await tx.query<R>(
    `with candidates as (${sql}) select * from candidates
      offset ($${n}::bigint % greatest((select count(*) from candidates), 1)) limit 1`,
    [...params, pick],
  );
  return row;
}

// A row of a table of labelled objects, picked, its label given the change's number in place of the one an earlier
// relabel gave it ("Chaise Oslo · 17": relabels do not pile suffixes up); its id and new label.
async function renumber(
  tx: Executor,
  table: "products" | "families" | "categories",
  orgId: string,
  c: Change,
): Promise<{ id: string; label: string } | undefined> {
  const row = await pickRow<{ id: string }>(
    tx,
    `select id from ${table} where org_id = $1 order by id`,
    [orgId],
    c.pick,
  );
  if (!row) return undefined;
  const [{ label }] = (await tx.query<{ label: string }>(
    `update ${table} set label = regexp_replace(label, ' · [0-9]+$', '') || ' · ' || $3, updated_at = now()
      where org_id = $1 and id = $2 returning label`,
    [orgId, row.id, c.salt % 1000],
  )) as [{ label: string }];
  return { id: row.id, label };
}

const PRODUCTS = "select id, label from products where org_id = $1 order by id";

// What each kind writes, in the transaction `tx`; undefined when the catalog has nothing it can touch (no link to
// remove, no option to relabel).
export const WRITES: Record<
  ChangeKind,
  (tx: Executor, orgId: string, c: Change) => Promise<Omit<AppliedChange, "kind" | "txid"> | undefined>
> = {
  async create(tx, orgId, c) {
    const parent = await pickRow<{ family_id: string; category_id: string }>(
      tx,
      "select family_id, category_id from products where org_id = $1 order by id",
      [orgId],
      c.pick,
    );
    const family =
      parent?.family_id ??
      (
        await tx.query<{ id: string }>("select id from families where org_id = $1 order by id limit 1", [
          orgId,
        ])
      )[0]?.id;
    const category =
      parent?.category_id ??
      (
        await tx.query<{ id: string }>("select id from categories where org_id = $1 order by id limit 1", [
          orgId,
        ])
      )[0]?.id;
    if (!family || !category) return undefined;
    const id = newId("prd");
    const identifier = `ACT-${id.slice(4, 12).toUpperCase()}`;
    const label = `Nouveauté ${c.salt % 1000}`;
    await tx.query(
      `insert into products (id, org_id, identifier, label, status, family_id, category_id)
       values ($1, $2, $3, $4, 'draft', $5, $6)`,
      [id, orgId, identifier, label, family, category],
    );
    // Its SKU and its name, when the catalog has those attributes (the demo's have).
    await tx.query(
      `insert into product_values (org_id, product_id, attribute_id, attribute_scopable, value)
       select $1, $2, a.id, a.is_scopable, to_jsonb(case a.code when 'sku' then $3::text else $4::text end)
         from attributes a where a.org_id = $1 and a.code in ('sku', 'name')`,
      [orgId, id, identifier, label],
    );
    return { type: "products", id, text: `created ${identifier} “${label}”` };
  },

  async relabel(tx, orgId, c) {
    const p = await renumber(tx, "products", orgId, c);
    return p && { type: "products", id: p.id, text: `relabelled “${p.label}”` };
  },

  async status(tx, orgId, c) {
    const p = await pickRow<{ id: string }>(tx, PRODUCTS, [orgId], c.pick);
    if (!p) return undefined;
    const status = PRODUCT_STATUSES[c.salt % PRODUCT_STATUSES.length]!;
    await tx.query("update products set status = $3, updated_at = now() where org_id = $1 and id = $2", [
      orgId,
      p.id,
      status,
    ]);
    return { type: "products", id: p.id, text: `status ${status}` };
  },

  // An unscoped text or number value of a product (not a unique one: another product may hold the new text).
  async value(tx, orgId, c) {
    const v = await pickRow<{ product_id: string; attribute_id: string; code: string; type: string }>(
      tx,
      `select pv.product_id, pv.attribute_id, a.code, a.type
         from product_values pv join attributes a on a.id = pv.attribute_id and a.org_id = pv.org_id
        where pv.org_id = $1 and pv.channel_id is null and a.type in ('TEXT', 'TEXTAREA', 'NUMBER')
          and not a.unique_value
        order by pv.product_id, pv.attribute_id`,
      [orgId],
      c.pick,
    );
    if (!v) return undefined;
    const value = v.type === "NUMBER" ? (c.salt % 10_000) / 100 : `Texte révisé ${c.salt % 1000}`;
    await tx.query(
      `update product_values set value = $4, updated_at = now()
        where org_id = $1 and product_id = $2 and attribute_id = $3 and channel_id is null`,
      [orgId, v.product_id, v.attribute_id, JSON.stringify(value)],
    );
    return { type: "products", id: v.product_id, text: `${v.code} = ${JSON.stringify(value)}` };
  },

  async delete(tx, orgId, c) {
    const p = await pickRow<{ id: string; label: string }>(tx, PRODUCTS, [orgId], c.pick);
    if (!p) return undefined;
    // Its values and media links go with it (on delete cascade).
    await tx.query("delete from products where org_id = $1 and id = $2", [orgId, p.id]);
    return { type: "products", id: p.id, text: `deleted “${p.label}”` };
  },

  async "family-relabel"(tx, orgId, c) {
    const f = await renumber(tx, "families", orgId, c);
    return (
      f && { type: "families", id: f.id, text: `family relabelled “${f.label}” (its products move too)` }
    );
  },

  async "category-relabel"(tx, orgId, c) {
    const cat = await renumber(tx, "categories", orgId, c);
    return (
      cat && {
        type: "categories",
        id: cat.id,
        text: `category relabelled “${cat.label}” (its products move too)`,
      }
    );
  },

  // A public media linked to a product that does not show it yet, after its other media.
  async "link-media"(tx, orgId, c) {
    const p = await pickRow<{ id: string }>(tx, PRODUCTS, [orgId], c.pick);
    if (!p) return undefined;
    const m = await pickRow<{ id: string; original_name: string }>(
      tx,
      `select m.id, m.original_name from media m
        where m.org_id = $1 and m.is_public
          and not exists (select 1 from media_links l where l.org_id = $1 and l.media_id = m.id and l.product_id = $2)
        order by m.id`,
      [orgId, p.id],
      c.salt,
    );
    if (!m) return undefined;
    await tx.query(
      `insert into media_links (org_id, media_id, product_id, position)
       select $1, $2, $3, coalesce(max(position) + 1, 0) from media_links where org_id = $1 and product_id = $3`,
      [orgId, m.id, p.id],
    );
    return { type: "products", id: p.id, text: `media “${m.original_name}” linked` };
  },

  async "unlink-media"(tx, orgId, c) {
    const l = await pickRow<{ product_id: string; media_id: string; original_name: string }>(
      tx,
      `select l.product_id, l.media_id, m.original_name from media_links l join media m on m.id = l.media_id
        where l.org_id = $1 and l.product_id is not null order by l.product_id, l.media_id`,
      [orgId],
      c.pick,
    );
    if (!l) return undefined;
    await tx.query("delete from media_links where org_id = $1 and product_id = $2 and media_id = $3", [
      orgId,
      l.product_id,
      l.media_id,
    ]);
    return { type: "products", id: l.product_id, text: `media “${l.original_name}” unlinked` };
  },

  // A product's name in one channel (the scopable `name` attribute's value there), added or replaced.
  async "channel-name"(tx, orgId, c) {
    const p = await pickRow<{ id: string; label: string }>(tx, PRODUCTS, [orgId], c.pick);
    const ch = await pickRow<{ id: string; code: string }>(
      tx,
      "select id, code from channels where org_id = $1 order by id",
      [orgId],
      c.salt,
    );
    const [name] = await tx.query<{ id: string }>(
      "select id from attributes where org_id = $1 and code = 'name' and is_scopable",
      [orgId],
    );
    if (!p || !ch || !name) return undefined;
    const value = `${p.label} (${ch.code} ${c.salt % 1000})`;
    await tx.query(
      `insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value)
       values ($1, $2, $3, true, $4, $5)
       on conflict (product_id, attribute_id, coalesce(channel_id, ''))
       do update set value = excluded.value, updated_at = now()`,
      [orgId, p.id, name.id, ch.id, JSON.stringify(value)],
    );
    return { type: "products", id: p.id, text: `name in ${ch.code} “${value}”` };
  },

  // A media made private (it leaves the media list and the products that showed it), or public again.
  async "media-visibility"(tx, orgId, c) {
    const m = await pickRow<{ id: string }>(
      tx,
      "select id from media where org_id = $1 order by id",
      [orgId],
      c.pick,
    );
    if (!m) return undefined;
    const [row] = await tx.query<{ is_public: boolean; original_name: string }>(
      `update media set is_public = not is_public, updated_at = now() where org_id = $1 and id = $2
       returning is_public, original_name`,
      [orgId, m.id],
    );
    return {
      type: "media",
      id: m.id,
      text: `media “${row!.original_name}” made ${row!.is_public ? "public" : "private"}`,
    };
  },

  async "option-relabel"(tx, orgId, c) {
    const o = await pickRow<{ attribute_id: string; code: string }>(
      tx,
      "select attribute_id, code from attribute_options where org_id = $1 order by attribute_id, code",
      [orgId],
      c.pick,
    );
    if (!o) return undefined;
    const [row] = await tx.query<{ label: string }>(
      `update attribute_options set label = regexp_replace(label, ' · [0-9]+$', '') || ' · ' || $4,
              updated_at = now()
        where org_id = $1 and attribute_id = $2 and code = $3 returning label`,
      [orgId, o.attribute_id, o.code, c.salt % 1000],
    );
    return { type: "attributes", id: o.attribute_id, text: `option ${o.code} relabelled “${row!.label}”` };
  },
};
