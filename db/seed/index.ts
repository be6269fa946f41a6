// Demo catalog generator: deterministic, French-flavoured organizations built with set-based SQL.
import type { Database, Executor } from "@/db/client";
import { ID_PREFIX, stableId } from "@/db/schema";
import { batchValues, bulkLoad, checkReferences, loadBatch } from "./batch";
import { countCatalog, removeCatalog } from "./catalog-tables";
import { checkFlavour } from "./flavour";
import { mediaFileSizes } from "./media-files";
import { stamp } from "./stamps";
import { seedStructure } from "./structure";
import { FLAVOURS, type FlavourName } from "./vocabulary";

export { CATALOG_TABLES, countCatalog } from "./catalog-tables";
export { codeOf, optionsOf } from "./flavour";

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

    const values = batchValues({ orgId, slug, seed, products, flavour, structure: s, sizes });
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
    await loadBatch(tx, v);
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
