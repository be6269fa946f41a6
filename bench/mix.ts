// The multi-tenant mix (issue 22): many keys of several organizations, every request drawn afresh — resource,
// filters, sort, page size, deep pages, searches and `updatedSince` windows — so that the page cache's best case (one
// URL repeated) is not the only figure. The same draw runs on the app (autocannon's setupRequest, and the open-loop
// generator from a file) and on the floor.
import type { Database } from "@/db/client";
import { ATTRIBUTE_TYPES, MEDIA_TYPES } from "@/db/schema";
import { ATTRIBUTE_SORTS } from "@/lib/catalog/resources/attributes";
import { CATEGORY_SORTS } from "@/lib/catalog/resources/categories";
import { FAMILY_SORTS } from "@/lib/catalog/resources/families";
import { MEDIA_SORTS } from "@/lib/catalog/resources/media";
import { PRODUCT_SORTS } from "@/lib/catalog/resources/products";
import { randomSource } from "@/lib/seeded-random";

// What the draw needs of one organization: its keys and the ids and words its filters take.
export interface MixOrganization {
  slug: string;
  /** `Bearer …` header values of the organization's keys. */
  authorizations: string[];
  products: number;
  familyIds: string[];
  categoryIds: string[];
  parentIds: string[];
  channelIds: string[];
  words: string[];
  /** Words few products hold: SKUs of a sample of products, lower-cased. */
  rareWords: string[];
}

// What the draw favours: "spread", every resource with its filters (page 1 half the time); "big catalog", the
// shapes of an integrator's traffic on a big catalog: a third lists of every resource as "spread" draws them, a
// quarter product pages of 100 anywhere in the catalog in every documented sort, a fifth searches (common and rare
// words, pages 1–3), a sixth updatedSince windows, the rest the hot page 1.
export type MixShape = "spread" | "big-catalog";

export interface Mix {
  shape?: MixShape;
  organizations: MixOrganization[];
  /** The instant the `updatedSince` windows count back from (ms since the epoch). */
  now: number;
}

// One drawn request.
export interface MixRequest {
  path: string;
  authorization: string;
}

// Reads, per organization, the ids and words the draw uses (a random sample of each).
export async function loadMix(
  db: Database,
  organizations: { id: string; slug: string; keys: string[] }[],
): Promise<Mix> {
  const out: MixOrganization[] = [];
  for (const o of organizations) {
    const ids = async (sql: string) => (await db.query<{ id: string }>(sql, [o.id])).map((r) => r.id);
    const [count] = await db.query<{ n: string }>("select count(*) as n from products where org_id = $1", [
      o.id,
    ]);
    const labels = await db.query<{ label: string }>(
      "select label from products where org_id = $1 order by md5(id) limit 200",
      [o.id],
    );
    const words = [
      ...new Set(
        labels.flatMap((l) =>
          l.label
            .toLowerCase()
            .split(/[^\p{L}\p{N}]+/u)
            .filter((w) => w.length >= 4),
        ),
      ),
    ].slice(0, 60);
    out.push({
      slug: o.slug,
      authorizations: o.keys.map((k) => `Bearer ${k}`),
      products: Number(count?.n ?? 0),
      familyIds: await ids("select id from families where org_id = $1 order by md5(id) limit 100"),
      categoryIds: await ids("select id from categories where org_id = $1 order by md5(id) limit 200"),
      parentIds: await ids(
        "select distinct parent_id as id from categories where org_id = $1 and parent_id is not null limit 100",
      ),
      channelIds: await ids("select id from channels where org_id = $1"),
      words,
      rareWords: (
        await db.query<{ identifier: string }>(
          "select identifier from products where org_id = $1 order by md5(id) limit 100",
          [o.id],
        )
      ).map((r) => r.identifier.toLowerCase()),
    });
  }
  return { organizations: out, now: Date.now() };
}

// Draws requests from the mix, in its shape.
export function mixDrawer(mix: Mix, seed: number): () => MixRequest {
  return mix.shape === "big-catalog" ? bigCatalogDrawer(mix, seed) : spreadDrawer(mix, seed);
}

// The big catalog's shape (MixShape).
function bigCatalogDrawer(mix: Mix, seed: number): () => MixRequest {
  const random = randomSource(seed + 1_000_000);
  const spread = spreadDrawer(mix, seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sorts = Object.keys(PRODUCT_SORTS).flatMap((f) => [`${f}.asc`, `${f}.desc`]);
  const windows = [3_600_000, 86_400_000, 7 * 86_400_000, 30 * 86_400_000];
  return () => {
    const roll = random();
    if (roll < 1 / 3) return spread();
    const org = pick(mix.organizations);
    const q = new URLSearchParams();
    if (roll < 1 / 3 + 1 / 4) {
      const lastPage = Math.max(1, Math.floor(org.products / 100));
      q.set("perPage", "100");
      q.set("sort", pick(sorts));
      q.set("page", String(1 + Math.floor(random() * lastPage)));
    } else if (roll < 1 / 3 + 1 / 4 + 1 / 5) {
      q.set("q", random() < 0.7 ? pick(org.words) : pick(org.rareWords));
      const page = 1 + Math.floor(random() * 3);
      if (page > 1) q.set("page", String(page));
    } else if (roll < 1 / 3 + 1 / 4 + 1 / 5 + 1 / 6) {
      q.set("perPage", "100");
      q.set("updatedSince", new Date(mix.now - random() * pick(windows)).toISOString());
    }
    const query = q.toString();
    return {
      path: `/public/v1/products${query ? `?${query}` : ""}`,
      authorization: pick(org.authorizations),
    };
  };
}

// The spread shape (MixShape): an organization, one of its keys, then a resource and its parameters.
function spreadDrawer(mix: Mix, seed: number): () => MixRequest {
  const random = randomSource(seed);
  const chance = (p: number) => random() < p;
  const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(random() * xs.length)];
  const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const sort = (fields: object) => `${pick(Object.keys(fields))}.${chance(0.5) ? "asc" : "desc"}`;
  const windows = [3_600_000, 86_400_000, 7 * 86_400_000, 30 * 86_400_000];

  return () => {
    const org = pick(mix.organizations)!;
    const q = new URLSearchParams();
    // Sets a parameter (none when the organization has nothing to draw from); true when set.
    const set = (name: string, value: string | undefined): boolean => {
      if (value === undefined) return false;
      q.set(name, value);
      return true;
    };
    const perPage = pick([20, 20, 20, 50, 100])!;
    if (perPage !== 20) set("perPage", String(perPage));
    const roll = random();
    let resource: string;
    if (roll < 0.6) {
      resource = "products";
      let filtered = false;
      if (chance(0.2)) filtered = set("q", pick(org.words)) || filtered;
      if (chance(0.15)) filtered = set("familyId", pick(org.familyIds)) || filtered;
      if (chance(0.15)) filtered = set("categoryId", pick(org.categoryIds)) || filtered;
      if (chance(0.2)) set("channelId", pick(org.channelIds));
      if (chance(0.15)) {
        filtered = true;
        set("updatedSince", new Date(mix.now - random() * pick(windows)!).toISOString());
      }
      if (chance(0.5)) set("sort", sort(PRODUCT_SORTS));
      // Page 1 half the time, a near page often, a deep one (within the catalog, unfiltered) sometimes.
      const lastPage = Math.max(1, Math.floor(org.products / perPage));
      const page = chance(0.5)
        ? 1
        : chance(0.7) || filtered
          ? between(2, 20)
          : between(21, Math.max(21, Math.min(lastPage, 10_000)));
      if (page > 1) set("page", String(page));
    } else if (roll < 0.7) {
      resource = "families";
      if (chance(0.2)) set("q", pick(org.words)?.slice(0, 4));
      if (chance(0.5)) set("sort", sort(FAMILY_SORTS));
      if (chance(0.3)) set("page", String(between(2, 5)));
    } else if (roll < 0.8) {
      resource = "attributes";
      if (chance(0.3)) set("type", pick(ATTRIBUTE_TYPES));
      if (chance(0.2)) set("familyId", pick(org.familyIds));
      if (chance(0.5)) set("sort", sort(ATTRIBUTE_SORTS));
    } else if (roll < 0.9) {
      resource = "categories";
      if (chance(0.3)) set("parentId", pick(org.parentIds));
      if (chance(0.2)) set("isMaster", chance(0.5) ? "true" : "false");
      if (chance(0.5)) set("sort", sort(CATEGORY_SORTS));
      if (chance(0.3)) set("page", String(between(2, 10)));
    } else {
      resource = "media";
      if (chance(0.2)) set("orphansOnly", "true");
      if (chance(0.2)) set("type", pick(MEDIA_TYPES));
      if (chance(0.5)) set("sort", sort(MEDIA_SORTS));
      if (chance(0.5)) set("page", String(between(2, 50)));
    }
    const query = q.toString();
    return {
      path: `/public/v1/${resource}${query ? `?${query}` : ""}`,
      authorization: pick(org.authorizations)!,
    };
  };
}
