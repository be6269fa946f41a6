import type { Executor } from "@/db/client";
import type { MediaType } from "@/db/schema";
import { BATCH_SQL, LINKS_SQL, MEDIA_BATCH_SQL, MEDIA_SQL, PRODUCTS_SQL, VALUES_SQL } from "./batch-sql";
import { codeOf, optionsOf } from "./flavour";
import { MEDIA_EXTENSIONS, MEDIA_MIME_TYPES } from "./media-files";
import { run } from "./sql";
import { BASE_MS, PRODUCT_SPREAD_MS } from "./stamps";
import type { Structure } from "./structure";
import { FLAVOURS, type Flavour } from "./vocabulary";

// The products of an organization, loaded in batches: each batch's parameters, the check of the ids they reference,
// the bulk load without triggers, and one batch run.

// The parameters every batch of an organization shares: its ids, the flavour's words and the media files' sizes.
export function batchValues(o: {
  orgId: string;
  slug: string;
  seed: string;
  products: number;
  flavour: Flavour;
  structure: Structure;
  sizes: Record<MediaType, number>;
}): Record<string, unknown> {
  const { orgId, slug, seed, products, flavour, structure: s, sizes } = o;
  const channelCodes = flavour.channels.map((c) => c.code);
  const options = optionsOf(flavour);
  return {
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
}

// Verifies that every id the batches reference (families, leaf categories, attributes, channels) is the org's.
export async function checkReferences(tx: Executor, v: Record<string, unknown>): Promise<void> {
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
export async function bulkLoad(tx: Executor, allowed: boolean): Promise<boolean> {
  if (!allowed) return false;
  const [role] = await tx.query<{ su: string }>("select current_setting('is_superuser') as su");
  if (role?.su !== "on") return false;
  await tx.exec("set local session_replication_role = replica");
  return true;
}

// One batch of products and what hangs off them, on one connection: `v` holds the batch's bounds (from, to) and
// whether triggers are off (untriggered) besides the organization's parameters.
export async function loadBatch(tx: Executor, v: Record<string, unknown>): Promise<void> {
  await tx.exec("drop table if exists pg_temp.seed_batch; drop table if exists pg_temp.seed_media");
  for (const sql of [BATCH_SQL, PRODUCTS_SQL, VALUES_SQL, MEDIA_BATCH_SQL, MEDIA_SQL, LINKS_SQL])
    await run(tx, sql, v);
  await tx.exec("drop table if exists pg_temp.seed_batch; drop table if exists pg_temp.seed_media");
}
