// Demo catalog generator: deterministic, French-flavoured organizations built with set-based SQL.
import { createHash } from "node:crypto";
import type { Database, Executor } from "@/db/client";
import { ID_PREFIX, stableId, type IdPrefix } from "@/db/schema";
import { MEDIA_EXTENSIONS, MEDIA_MIME_TYPES, mediaFileSizes } from "./media-files";
import { FLAVOURS, type Flavour, type FlavourName } from "./vocabulary";

// Progress of a seed: the step running and how far it is.
export interface SeedProgress {
  step: string;
  done: number;
  total: number;
}

// Options of seedOrganization.
export interface SeedOrganizationOptions {
  slug: string;
  name: string;
  products: number;
  /** Seed of every random choice (default: the slug). Ids depend on the slug only. */
  seed?: string;
  flavour?: FlavourName;
  onProgress?: (p: SeedProgress) => void;
  /** Products generated per SQL batch (default 50,000). */
  batchSize?: number;
  /** Batches run at once on a server (default 2; PGlite always runs one, in a single transaction). */
  concurrency?: number;
  /** Skip per-row foreign-key checks and triggers when the role is a superuser (default true). */
  fastLoad?: boolean;
}

// The two demo organizations seeded at first start.
export const DEMO_ORGS = [
  { slug: "acme", name: "Acme Maison", products: 3000, flavour: "home" },
  { slug: "globex", name: "Globex Mode & Sport", products: 400, flavour: "fashion" },
] as const satisfies readonly { slug: string; name: string; products: number; flavour: FlavourName }[];

// Thrown when an organization to seed already has products (nothing was written).
export class SeedRefusedError extends Error {
  constructor(readonly slug: string) {
    super(`Organization "${slug}" already has products: seeding refused (nothing was changed).`);
    this.name = "SeedRefusedError";
  }
}

// Largest catalog the generator accepts in one call.
export const MAX_PRODUCTS = 10_000_000;

const BASE_MS = Date.UTC(2025, 2, 3, 8, 0, 0, 0); // 2025-03-03T08:00:00.000Z
const PRODUCT_SPREAD_MS = 300 * 86_400_000; // products are created over 300 days

// Lower-case, accent-free code of a label ("Bleu pétrole" → "bleu_petrole").
export function codeOf(label: string, sep = "_"): string {
  return label
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, sep)
    .replace(new RegExp(`^\\${sep}+|\\${sep}+$`, "g"), "");
}

function hashInt(s: string): number {
  return createHash("sha256").update(s).digest().readUInt32BE(0);
}

// A timestamp with milliseconds, derived from a position and a key (never from the clock).
function stamp(offsetMs: number, key: string): string {
  return new Date(BASE_MS + offsetMs + (hashInt(key) % 1000)).toISOString();
}

// Replaces {name} placeholders with $n and returns the ordered values.
function bind(text: string, values: Record<string, unknown>): [string, unknown[]] {
  const order: string[] = [];
  const sql = text.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`seed SQL: no value for {${name}}`);
    let i = order.indexOf(name);
    if (i < 0) i = order.push(name) - 1;
    return `$${i + 1}`;
  });
  return [sql, order.map((n) => values[n])];
}

async function run(tx: Executor, text: string, values: Record<string, unknown>): Promise<void> {
  const [sql, params] = bind(text, values);
  await tx.query(sql, params);
}

// Inserts rows given as columns with one unnest() statement.
async function insertColumns(
  tx: Executor,
  table: string,
  columns: Record<string, [type: string, values: unknown[]]>,
) {
  const names = Object.keys(columns);
  const casts = names.map((n, i) => `$${i + 1}::${columns[n]![0]}[]`);
  await tx.query(
    `insert into ${table} (${names.join(", ")}) select * from unnest(${casts.join(", ")})`,
    names.map((n) => columns[n]![1]),
  );
}

interface Structure {
  channels: Record<string, string>;
  attributes: Record<string, string>;
  families: { id: string; code: string; sku: string; price: [number, number]; weight: [number, number] }[];
  nouns: { text: string; gender: string; family: number; leaf: string }[];
}

// The options of a flavour's SELECT and MULTI_SELECT attributes, in their order, by attribute code: the colors and
// the materials (the codes products are given), then the flavour's other option lists.
export function optionsOf(f: Flavour): Record<string, { code: string; label: string }[]> {
  const lists: Record<string, string[]> = { color: f.colors, material: f.materials, ...f.options };
  return Object.fromEntries(
    Object.entries(lists).map(([code, labels]) => [
      code,
      labels.map((label) => ({ code: codeOf(label), label })),
    ]),
  );
}

function checkFlavour(f: Flavour): void {
  const families = new Set(f.families.map((x) => x.code));
  const attributes = new Set(f.attributes.map((a) => a.code));
  const options = optionsOf(f);
  const selects = new Set(
    f.attributes.filter((a) => a.type === "SELECT" || a.type === "MULTI_SELECT").map((a) => a.code),
  );
  for (const code of selects)
    if (!options[code]?.length) throw new Error(`vocabulary: attribute ${code} has no option`);
  for (const [code, list] of Object.entries(options)) {
    if (!selects.has(code)) throw new Error(`vocabulary: options of ${code}, not a SELECT or MULTI_SELECT`);
    const codes = new Set(list.map((o) => o.code));
    if (codes.size !== list.length || codes.has(""))
      throw new Error(`vocabulary: option codes of ${code} clash`);
  }
  const used = new Set<string>();
  for (const b of f.branches)
    for (const l of b.leaves)
      for (const n of l.nouns) {
        if (!families.has(n.family)) throw new Error(`vocabulary: unknown family ${n.family}`);
        used.add(n.family);
      }
  for (const fam of f.families) {
    if (!used.has(fam.code)) throw new Error(`vocabulary: family ${fam.code} has no product noun`);
    for (const c of fam.extra) if (!attributes.has(c)) throw new Error(`vocabulary: unknown attribute ${c}`);
  }
}

// Channels, attributes, families, family attributes and the category trees of one organization.
async function seedStructure(tx: Executor, orgId: string, slug: string, f: Flavour): Promise<Structure> {
  const id = (prefix: IdPrefix, key: string) => stableId(prefix, `${slug}:${key}`);

  const channels: Structure["channels"] = {};
  const ch = f.channels.map((c, i) => {
    channels[c.code] = id(ID_PREFIX.channel, `channel:${c.code}`);
    return {
      id: channels[c.code]!,
      code: c.code,
      label: c.label,
      at: stamp(i * 60_000, `${slug}:chn:${c.code}`),
    };
  });
  await insertColumns(tx, "channels", {
    id: ["text", ch.map((c) => c.id)],
    org_id: ["text", ch.map(() => orgId)],
    code: ["text", ch.map((c) => c.code)],
    label: ["text", ch.map((c) => c.label)],
    created_at: ["timestamptz", ch.map((c) => c.at)],
    updated_at: ["timestamptz", ch.map((c) => c.at)],
  });

  const attributes: Structure["attributes"] = {};
  const at = f.attributes.map((a, i) => {
    attributes[a.code] = id(ID_PREFIX.attribute, `attribute:${a.code}`);
    return { ...a, id: attributes[a.code]!, at: stamp(3_600_000 + i * 397_000, `${slug}:att:${a.code}`) };
  });
  await insertColumns(tx, "attributes", {
    id: ["text", at.map((a) => a.id)],
    org_id: ["text", at.map(() => orgId)],
    slug: ["text", at.map((a) => a.code.replace(/_/g, "-"))],
    code: ["text", at.map((a) => a.code)],
    label: ["text", at.map((a) => a.label)],
    type: ["text", at.map((a) => a.type)],
    unique_value: ["bool", at.map((a) => Boolean(a.unique))],
    is_scopable: ["bool", at.map((a) => Boolean(a.scopable))],
    created_at: ["timestamptz", at.map((a) => a.at)],
    updated_at: [
      "timestamptz",
      at.map((a, i) => (i % 3 === 0 ? stamp(40 * 86_400_000 + i * 7_777_000, a.code) : a.at)),
    ],
  });

  // The options of the SELECT and MULTI_SELECT attributes, dated like their attribute. An upsert: options a
  // database already has (migration 0012 labels them with their code) take the vocabulary's labels and order.
  const opts = Object.entries(optionsOf(f)).flatMap(([code, list]) => {
    const a = at.find((x) => x.code === code)!;
    return list.map((o, position) => ({ ...o, attribute: a.id, position, at: a.at }));
  });
  await tx.query(
    `insert into attribute_options (org_id, attribute_id, code, label, position, created_at, updated_at)
     select $1, t.attribute_id, t.code, t.label, t.position, t.at, t.at
       from unnest($2::text[], $3::text[], $4::text[], $5::int4[], $6::timestamptz[])
         as t(attribute_id, code, label, position, at)
     on conflict (attribute_id, code) do update set label = excluded.label, position = excluded.position`,
    [
      orgId,
      opts.map((o) => o.attribute),
      opts.map((o) => o.code),
      opts.map((o) => o.label),
      opts.map((o) => o.position),
      opts.map((o) => o.at),
    ],
  );

  const families = f.families.map((fam, i) => ({
    id: id(ID_PREFIX.family, `family:${fam.code}`),
    code: fam.code,
    sku: codeOf(fam.code, "").slice(0, 3).toUpperCase(),
    price: fam.price,
    weight: fam.weight,
    spec: fam,
    at: stamp(2 * 86_400_000 + i * 1_234_000, `${slug}:fam:${fam.code}`),
  }));
  await insertColumns(tx, "families", {
    id: ["text", families.map((x) => x.id)],
    org_id: ["text", families.map(() => orgId)],
    slug: ["text", families.map((x) => x.code.replace(/_/g, "-"))],
    code: ["text", families.map((x) => x.code)],
    label: ["text", families.map((x) => x.spec.label)],
    created_at: ["timestamptz", families.map((x) => x.at)],
    updated_at: [
      "timestamptz",
      families.map((x, i) => (i % 4 === 1 ? stamp(90 * 86_400_000 + i * 999_000, x.code) : x.at)),
    ],
  });

  const fa: { family: string; attribute: string; required: boolean; position: number }[] = [];
  for (const fam of families) {
    const codes: [string, boolean][] = [
      ...f.common,
      ...fam.spec.extra.map((c): [string, boolean] => [c, c === "size"]),
    ];
    codes.forEach(([code, required], position) =>
      fa.push({ family: fam.id, attribute: attributes[code]!, required, position }),
    );
  }
  await insertColumns(tx, "family_attributes", {
    org_id: ["text", fa.map(() => orgId)],
    family_id: ["text", fa.map((x) => x.family)],
    attribute_id: ["text", fa.map((x) => x.attribute)],
    is_required: ["bool", fa.map((x) => x.required)],
    position: ["int4", fa.map((x) => x.position)],
  });

  // Category trees: the master tree (root → branches → leaves) and the secondary trees.
  const cats: {
    id: string;
    slug: string;
    label: string;
    parent: string | null;
    master: boolean;
    position: number;
  }[] = [];
  const addCat = (label: string, parent: (typeof cats)[number] | null, master: boolean, position: number) => {
    const catSlug = parent ? `${parent.slug}-${codeOf(label, "-")}` : codeOf(label, "-");
    const c = {
      id: id(ID_PREFIX.category, `category:${catSlug}`),
      slug: catSlug,
      label,
      parent: parent?.id ?? null,
      master,
      position,
    };
    cats.push(c);
    return c;
  };
  const nouns: Structure["nouns"] = [];
  const familyIndex = new Map(families.map((x, i) => [x.code, i + 1]));
  const root = addCat(f.masterRoot, null, true, 0);
  f.branches.forEach((b, bi) => {
    const branch = addCat(b.label, root, true, bi);
    b.leaves.forEach((l, li) => {
      const leaf = addCat(l.label, branch, true, li);
      for (const n of l.nouns)
        nouns.push({ text: n.text, gender: n.gender, family: familyIndex.get(n.family)!, leaf: leaf.id });
    });
  });
  f.secondary.forEach((t, ti) => {
    const top = addCat(t.label, null, false, ti + 1);
    t.children.forEach((c, ci) => addCat(c, top, false, ci));
  });
  await insertColumns(tx, "categories", {
    id: ["text", cats.map((c) => c.id)],
    org_id: ["text", cats.map(() => orgId)],
    slug: ["text", cats.map((c) => c.slug)],
    label: ["text", cats.map((c) => c.label)],
    parent_id: ["text", cats.map((c) => c.parent)],
    is_master: ["bool", cats.map((c) => c.master)],
    position: ["int4", cats.map((c) => c.position)],
    created_at: [
      "timestamptz",
      cats.map((c, i) => stamp(3 * 86_400_000 + i * 611_000, `${slug}:cat:${c.slug}`)),
    ],
    updated_at: [
      "timestamptz",
      cats.map((c, i) => stamp((3 + (i % 5) * 20) * 86_400_000 + i * 611_000, c.slug)),
    ],
  });

  return { channels, attributes, families, nouns };
}

// One batch of products [from, to]: every choice drawn from one md5 per product, words joined from small tables.
const BATCH_SQL = `
create temp table seed_batch on commit drop as
with g as (
  select n, decode(md5({seed} || ':' || n), 'hex') as h from generate_series({from}::int, {to}::int) as n
), c as materialized (
  select n,
    1 + (get_byte(h, 0) * 256 + get_byte(h, 1)) % {n_nouns}::int as ni,
    1 + get_byte(h, 2) % {n_adj}::int as ai,
    1 + get_byte(h, 3) % {n_materials}::int as mi,
    1 + get_byte(h, 4) % {n_colors}::int as ci,
    1 + get_byte(h, 15) % {n_moods}::int as oi,
    get_byte(h, 5) * 256 + get_byte(h, 6) as r1,
    get_byte(h, 7) * 65536 + get_byte(h, 8) * 256 + get_byte(h, 9) as r2,
    get_byte(h, 10) as r3,
    get_byte(h, 11) as r4,
    get_byte(h, 12) * 65536 + get_byte(h, 13) * 256 + get_byte(h, 14) as r5
  from g
), nn as (
  select * from unnest({nouns}::text[], {genders}::text[], {noun_family}::int[], {noun_leaf}::text[])
    with ordinality as t(noun, gender, fi, category_id, i)
), aa as (
  select * from unnest({adj_m}::text[], {adj_f}::text[]) with ordinality as t(m, f, i)
), mm as (
  select * from unnest({materials}::text[], {material_codes}::text[]) with ordinality as t(material, code, i)
), cc as (
  select * from unnest({colors}::text[], {color_codes}::text[]) with ordinality as t(color, code, i)
), oo as (
  select * from unnest({moods}::text[]) with ordinality as t(mood, i)
), ff as (
  select * from unnest({fam_ids}::text[], {fam_sku}::text[], {fam_pmin}::int[], {fam_pmax}::int[],
                       {fam_wmin}::int[], {fam_wmax}::int[])
    with ordinality as t(family_id, sku, pmin, pmax, wmin, wmax, i)
), w as (
  select c.n, c.r1, c.r2, c.r3, c.r4, c.r5, nn.noun, nn.category_id, ff.family_id, ff.sku,
    case when nn.gender = 'f' then aa.f else aa.m end as adj,
    mm.material, mm.code as material_code, cc.color, cc.code as color_code, oo.mood,
    (ff.pmin + c.r1 % (ff.pmax - ff.pmin + 1)) * 100 - (array[10, 1, 0, 50])[1 + c.r4 % 4] as price_cents,
    ff.wmin + c.r2 % (ff.wmax - ff.wmin + 1) as weight_dg,
    {base}::timestamptz + ((c.n - 1)::bigint * {spread}::bigint / {total}::bigint + c.r2 % 1000) * interval '1 millisecond'
      as created_at
  from c
  join nn on nn.i = c.ni
  join aa on aa.i = c.ai
  join mm on mm.i = c.mi
  join cc on cc.i = c.ci
  join oo on oo.i = c.oi
  join ff on ff.i = nn.fi
)
select n, r1, r2, r3, r4, noun, adj, material, material_code, color, color_code, mood, category_id, family_id,
  price_cents, weight_dg, created_at,
  '${ID_PREFIX.product}_' || substr(md5({slug} || ':product:' || n), 1, 20) as id,
  {prefix}::text || '-' || sku || '-' || lpad(n::text, greatest(6, length(n::text)), '0') as identifier,
  noun || ' ' || adj || ' en ' || material || ' – ' || color as label,
  noun || ' ' || adj as short_name,
  created_at + r5 * interval '307 milliseconds' as updated_at
from w`;

const PRODUCTS_SQL = `
insert into products (id, org_id, identifier, label, status, family_id, category_id, created_at, updated_at)
select id, {org}, identifier, label, 'draft', family_id, category_id, created_at, updated_at from seed_batch order by n`;

const VALUES_SQL = `
insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value, updated_at)
select {org}, b.id, v.attribute_id, v.scopable, v.channel_id, v.value, b.updated_at
from seed_batch b
cross join lateral (values
  ({a_sku}::text, false, null::text, to_jsonb(b.identifier)),
  ({a_name}, true, null, to_jsonb(b.label)),
  ({a_name}, true, {ch1}, case when b.r3 % 10 < 4 then to_jsonb(b.short_name || ' en ' || b.material) end),
  ({a_name}, true, {ch2}, case when b.r3 % 10 < 7 then to_jsonb({brand} || ' – ' || b.label) end),
  ({a_name}, true, {ch3}, case when b.r4 % 10 < 3 then to_jsonb(b.short_name) end),
  ({a_description}, true, null, to_jsonb('Notre ' || lower(b.noun) || ' ' || b.adj || ' en ' || b.material
      || ' apporte une touche ' || b.mood || ' ' || {desc_end} || '. Coloris : ' || lower(b.color) || '.')),
  ({a_price}, false, null, jsonb_build_object('EUR', trim_scale(b.price_cents / 100.0))),
  ({a_promo}, true, {ch1}, case when b.r4 % 10 = 9
      then jsonb_build_object('EUR', trim_scale(round(b.price_cents * 0.8) / 100.0)) end),
  ({a_weight}, false, null, to_jsonb(trim_scale(b.weight_dg / 10.0))),
  ({a_color}, false, null, to_jsonb(b.color_code)),
  ({a_material}, false, null, to_jsonb(b.material_code))
) as v(attribute_id, scopable, channel_id, value)
where v.value is not null
order by b.n`;

// Media slots of a product: 1 packshot (2 products in 5), 2 mood picture (1 in 5), 3 video (1 in 20), 4 document (1 in 25).
const MEDIA_BATCH_SQL = `
create temp table seed_media on commit drop as
select b.n, s.slot,
  '${ID_PREFIX.media}_' || substr(md5({slug} || ':media:' || b.n || ':' || s.slot), 1, 20) as id,
  lower(b.identifier) || '-' || s.key as slug,
  lower(b.identifier) || '-' || s.key || '.' || s.ext as file_name,
  b.short_name || ' en ' || b.material || ' – ' || s.suffix || '.' || s.ext as original_name,
  s.type, s.category, s.mime, s.size,
  (b.r2 + s.slot * 7) % 40 <> 1 as is_public,
  b.created_at + s.slot * interval '17 minutes' as created_at,
  b.updated_at + s.slot * interval '17 minutes' + (b.r3 * s.slot) * interval '1 millisecond' as updated_at,
  case when (b.r1 + s.slot * 13) % 10 = 0 then null
       when s.slot = 2 and b.r4 % 3 = 0 then 'category' else 'product' end as link,
  b.id as product_id, b.category_id
from seed_batch b
join (values
  (1, 'packshot', 'IMAGE', {cat_packshot}::text, 'packshot', {ext_image}::text, {mime_image}::text, {size_image}::int),
  (2, 'ambiance', 'IMAGE', {cat_mood}, {mood_suffix}, {ext_image}, {mime_image}, {size_image}),
  (3, 'video', 'VIDEO', {cat_video}, 'vidéo de présentation', {ext_video}, {mime_video}, {size_video}),
  (4, 'fiche', 'DOCUMENT', {cat_document}, {document_suffix}, {ext_document}, {mime_document}, {size_document})
) as s(slot, key, type, category, suffix, ext, mime, size)
  on case s.slot when 1 then b.n % 5 in (0, 2) when 2 then b.n % 5 = 0 when 3 then b.n % 20 = 0 else b.n % 25 = 0 end`;

// When the bulk load skips triggers, each media's link count is written here (a media has at most one link);
// otherwise media_links' triggers count the links as LINKS_SQL inserts them.
const MEDIA_SQL = `
insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type, size_bytes, is_public,
                   created_at, updated_at, link_count)
select id, {org}, slug, original_name, type, category, file_name, mime, size, is_public, created_at, updated_at,
       case when {untriggered}::boolean and link is not null then 1 else 0 end
from seed_media order by n, slot`;

const LINKS_SQL = `
insert into media_links (org_id, media_id, product_id, category_id, position)
select {org}, id, case when link = 'product' then product_id end, case when link = 'category' then category_id end, slot
from seed_media where link is not null order by n, slot`;

// Verifies that every id the batches reference (families, leaf categories, attributes, channels) is the org's.
async function checkReferences(tx: Executor, v: Record<string, unknown>): Promise<void> {
  const [row] = await tx.query<{ missing: string[] }>(
    `select array(
       select 'family ' || x from unnest($2::text[]) x
        where not exists (select 1 from families f where f.org_id = $1 and f.id = x)
       union all
       select 'category ' || x from unnest($3::text[]) x
        where not exists (select 1 from categories c where c.org_id = $1 and c.id = x)
       union all
       select 'attribute ' || x from unnest($4::text[], $6::bool[]) as t(x, scopable)
        where not exists (select 1 from attributes a where a.org_id = $1 and a.id = x and a.is_scopable = t.scopable)
       union all
       select 'channel ' || x from unnest($5::text[]) x
        where not exists (select 1 from channels c where c.org_id = $1 and c.id = x)
     ) as missing`,
    [
      v.org,
      v.fam_ids,
      v.noun_leaf,
      [v.a_sku, v.a_name, v.a_description, v.a_price, v.a_promo, v.a_weight, v.a_color, v.a_material],
      [v.ch1, v.ch2, v.ch3],
      // The scopable flags VALUES_SQL writes with each attribute.
      [false, true, true, false, true, false, false, false],
    ],
  );
  if (row!.missing.length > 0) throw new Error(`seed: unknown references ${row!.missing.join(", ")}`);
}

// Bulk load: every reference of a batch is an id verified by checkReferences or a product of the same batch, so
// the per-row foreign-key triggers are skipped when the role may do so (as pg_restore does), and with them every
// other trigger; returns whether triggers are off for the rest of the transaction.
async function bulkLoad(tx: Executor, allowed: boolean): Promise<boolean> {
  if (!allowed) return false;
  const [role] = await tx.query<{ su: string }>("select current_setting('is_superuser') as su");
  if (role?.su !== "on") return false;
  await tx.exec("set local session_replication_role = replica");
  return true;
}

// Deletes what a failed seed left of an organization (the organization itself when the seed created it).
async function removeCatalog(db: Database, orgId: string, withOrganization: boolean): Promise<void> {
  if (withOrganization) {
    await db.query("delete from organizations where id = $1", [orgId]);
    return;
  }
  for (const table of [...CATALOG_TABLES].reverse())
    await db.query(`delete from ${table} where org_id = $1`, [orgId]);
}

// Seeds one organization (created if missing) with a generated catalog; refuses if it already has products.
export async function seedOrganization(
  db: Database,
  opts: SeedOrganizationOptions,
): Promise<{ orgId: string; counts: Record<string, number> }> {
  const { slug, name, products } = opts;
  if (!/^[a-z0-9](?:[a-z0-9-]{0,62})$/.test(slug))
    throw new Error(`Invalid organization slug "${slug}" (a-z, 0-9, -)`);
  if (!Number.isInteger(products) || products < 0 || products > MAX_PRODUCTS) {
    throw new Error(`Invalid product count ${products} (0 to ${MAX_PRODUCTS})`);
  }
  const flavour = FLAVOURS[opts.flavour ?? "home"];
  if (!flavour) throw new Error(`Unknown flavour "${opts.flavour}" (home or fashion)`);
  checkFlavour(flavour);
  const seed = opts.seed ?? slug;
  const batchSize = Math.max(1, opts.batchSize ?? 50_000);
  const fastLoad = opts.fastLoad ?? true;
  const progress = opts.onProgress ?? (() => undefined);

  const [existing] = await db.query<{ id: string; has_products: boolean }>(
    "select o.id, exists (select 1 from products p where p.org_id = o.id) as has_products from organizations o where o.slug = $1",
    [slug],
  );
  if (existing?.has_products) throw new SeedRefusedError(slug);
  const orgId = existing?.id ?? stableId(ID_PREFIX.organization, `org:${slug}`);
  const sizes = mediaFileSizes();
  const batches = Math.ceil(products / batchSize);
  const concurrency = db.driver === "pglite" ? 1 : Math.max(1, opts.concurrency ?? 2);

  // Creates the organization and its structure; returns the parameters of the product batches.
  const prepare = async (tx: Executor) => {
    const [again] = await tx.query<{ n: number }>(
      "select count(*)::int as n from products p join organizations o on o.id = p.org_id where o.slug = $1",
      [slug],
    );
    if (again!.n > 0) throw new SeedRefusedError(slug);
    progress({ step: "structure", done: 0, total: 1 });
    if (!existing) {
      const at = stamp(0, `${slug}:org`);
      await tx.query(
        "insert into organizations (id, slug, name, created_at, updated_at) values ($1, $2, $3, $4, $4)",
        [orgId, slug, name, at],
      );
    }
    const s = await seedStructure(tx, orgId, slug, flavour);
    progress({ step: "structure", done: 1, total: 1 });

    const channelCodes = flavour.channels.map((c) => c.code);
    const options = optionsOf(flavour);
    const values: Record<string, unknown> = {
      org: orgId,
      slug,
      seed,
      total: Math.max(1, products),
      base: new Date(BASE_MS).toISOString(),
      spread: PRODUCT_SPREAD_MS,
      prefix: codeOf(slug, "").slice(0, 3).toUpperCase() || "ORG",
      brand: flavour.brand,
      desc_end: flavour === FLAVOURS.fashion ? "à votre garde-robe" : "à votre intérieur",
      nouns: s.nouns.map((x) => x.text),
      genders: s.nouns.map((x) => x.gender),
      noun_family: s.nouns.map((x) => x.family),
      noun_leaf: s.nouns.map((x) => x.leaf),
      adj_m: flavour.adjectives.map((a) => a[0]),
      adj_f: flavour.adjectives.map((a) => a[1]),
      // Labels and codes of the color and material options (every code a product is given is an option).
      materials: options.material!.map((o) => o.label),
      material_codes: options.material!.map((o) => o.code),
      colors: options.color!.map((o) => o.label),
      color_codes: options.color!.map((o) => o.code),
      moods: flavour.moods,
      n_nouns: s.nouns.length,
      n_adj: flavour.adjectives.length,
      n_materials: flavour.materials.length,
      n_colors: flavour.colors.length,
      n_moods: flavour.moods.length,
      fam_ids: s.families.map((x) => x.id),
      fam_sku: s.families.map((x) => x.sku),
      fam_pmin: s.families.map((x) => x.price[0]),
      fam_pmax: s.families.map((x) => x.price[1]),
      fam_wmin: s.families.map((x) => x.weight[0]),
      fam_wmax: s.families.map((x) => x.weight[1]),
      a_sku: s.attributes.sku,
      a_name: s.attributes.name,
      a_description: s.attributes.description,
      a_price: s.attributes.price,
      a_promo: s.attributes.promo_price,
      a_weight: s.attributes.weight,
      a_color: s.attributes.color,
      a_material: s.attributes.material,
      ch1: s.channels[channelCodes[0]!],
      ch2: s.channels[channelCodes[1]!],
      ch3: s.channels[channelCodes[2]!],
      cat_packshot: flavour.mediaCategories.packshot,
      cat_mood: flavour.mediaCategories.mood,
      cat_video: flavour.mediaCategories.video,
      cat_document: flavour.mediaCategories.document,
      mood_suffix: flavour.moodSuffix,
      document_suffix: flavour.documentSuffix,
      ext_image: MEDIA_EXTENSIONS.IMAGE,
      ext_video: MEDIA_EXTENSIONS.VIDEO,
      ext_document: MEDIA_EXTENSIONS.DOCUMENT,
      mime_image: MEDIA_MIME_TYPES.IMAGE,
      mime_video: MEDIA_MIME_TYPES.VIDEO,
      mime_document: MEDIA_MIME_TYPES.DOCUMENT,
      size_image: sizes.IMAGE,
      size_video: sizes.VIDEO,
      size_document: sizes.DOCUMENT,
    };

    await checkReferences(tx, values);
    return values;
  };

  // One batch of products and what hangs off them, on one connection.
  let untriggeredAny = false;
  const runBatch = async (tx: Executor, b: number, untriggered: boolean) => {
    untriggeredAny ||= untriggered;
    const v = {
      ...values!,
      from: b * batchSize + 1,
      to: Math.min(products, (b + 1) * batchSize),
      untriggered,
    };
    await tx.exec("drop table if exists pg_temp.seed_batch; drop table if exists pg_temp.seed_media");
    for (const sql of [BATCH_SQL, PRODUCTS_SQL, VALUES_SQL, MEDIA_BATCH_SQL, MEDIA_SQL, LINKS_SQL])
      await run(tx, sql, v);
    await tx.exec("drop table if exists pg_temp.seed_batch; drop table if exists pg_temp.seed_media");
    return v.to - v.from + 1;
  };

  let values: Record<string, unknown> | undefined;
  let done = 0;
  if (concurrency === 1) {
    // Embedded database (one connection): the whole organization in one transaction.
    await db.transaction(async (tx) => {
      values = await prepare(tx);
      const untriggered = await bulkLoad(tx, fastLoad);
      progress({ step: "products", done: 0, total: products });
      for (let b = 0; b < batches; b++) {
        done += await runBatch(tx, b, untriggered);
        progress({ step: "products", done, total: products });
      }
    });
  } else {
    // Server: the structure first, then batches on several connections, each in its own transaction; on failure
    // the partly seeded organization is removed.
    values = await db.transaction(prepare);
    progress({ step: "products", done: 0, total: products });
    let next = 0;
    let failure: { error: unknown } | undefined;
    const worker = async () => {
      while (next < batches && !failure) {
        const b = next++;
        try {
          done += await db.transaction(async (tx) => runBatch(tx, b, await bulkLoad(tx, fastLoad)));
          progress({ step: "products", done, total: products });
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, batches) }, worker));
    if (failure) {
      await removeCatalog(db, orgId, !existing).catch((e) =>
        console.error(`[seed] cleanup of ${slug} failed: ${e instanceof Error ? e.message : e}`),
      );
      throw failure.error;
    }
  }

  // Batches loaded without triggers did not move the organization's versions (of all five resources): counts cached
  // while the seed ran must not outlive it.
  await db.query("select catalog_bump_versions(array[$1]::text[])", [orgId]);
  // Nor did they note their products in the change feed (migration 0016): every object of the organization is noted
  // once, so that a client following the feed from before the seed sees all it loaded.
  if (untriggeredAny) await db.query("select catalog_changes_note_all($1)", [orgId]);
  progress({ step: "analyze", done: 0, total: 1 });
  await db.exec(
    "analyze organizations, channels, families, attributes, attribute_options, family_attributes, categories, products, product_values, media, media_links",
  );
  progress({ step: "analyze", done: 1, total: 1 });
  return { orgId, counts: await countCatalog(db, orgId) };
}

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

// Seeds the two demo organizations (acme: home, globex: fashion); refuses before writing if either has products.
export async function seedDemo(
  db: Database,
  opts: { onProgress?: (p: SeedProgress & { org: string }) => void } = {},
): Promise<{ orgs: { slug: string; orgId: string }[] }> {
  const taken = await db.query<{ slug: string }>(
    "select o.slug from organizations o where o.slug = any($1::text[]) and exists (select 1 from products p where p.org_id = o.id) order by o.slug",
    [DEMO_ORGS.map((o) => o.slug)],
  );
  if (taken.length > 0) throw new SeedRefusedError(taken[0]!.slug);
  const orgs: { slug: string; orgId: string }[] = [];
  for (const org of DEMO_ORGS) {
    const { orgId } = await seedOrganization(db, {
      ...org,
      onProgress: opts.onProgress ? (p) => opts.onProgress!({ ...p, org: org.slug }) : undefined,
    });
    orgs.push({ slug: org.slug, orgId });
  }
  return { orgs };
}
