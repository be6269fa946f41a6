// The statements of one batch of products, run in this order with the parameters of ./batch.ts: the batch drawn
// into a temporary table, its products and their values, then their media and the media's links.
import { ID_PREFIX } from "@/db/schema";

// One batch of products [from, to]: every choice drawn from one md5 per product, words joined from small tables.
export const BATCH_SQL = `
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

export const PRODUCTS_SQL = `
insert into products (id, org_id, identifier, label, status, family_id, category_id, created_at, updated_at)
select id, {org}, identifier, label, 'draft', family_id, category_id, created_at, updated_at from seed_batch order by n`;

export const VALUES_SQL = `
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
export const MEDIA_BATCH_SQL = `
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
export const MEDIA_SQL = `
insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type, size_bytes, is_public,
                   created_at, updated_at, link_count)
select id, {org}, slug, original_name, type, category, file_name, mime, size, is_public, created_at, updated_at,
       case when {untriggered}::boolean and link is not null then 1 else 0 end
from seed_media order by n, slot`;

export const LINKS_SQL = `
insert into media_links (org_id, media_id, product_id, category_id, position)
select {org}, id, case when link = 'product' then product_id end, case when link = 'category' then category_id end, slot
from seed_media where link is not null order by n, slot`;
