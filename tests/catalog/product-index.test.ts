import { describe, expect, it } from "vitest";
import {
  INDEXED_SORTS,
  ProductIndex,
  type IndexedSort,
  type MemoryFilter,
  type ProductKeyRow,
} from "@/lib/catalog/memory/product-index";
import { compareC } from "@/lib/catalog/memory/text-order";

// ProductIndex.pageSlots alone (no database): a filtered page of any order, by each of its three ways (tested along the
// order; a search's matches found first, then sorted when few or marked and walked when many), is the brute-force
// answer: the matching rows sorted as Postgres sorts them (collate "C", the id last), then sliced.

const STATUS_RANK: Record<string, number> = { archived: 0, draft: 1, published: 2 };

function rows(n: number): ProductKeyRow[] {
  return Array.from({ length: n }, (_, i) => {
    // "lampe" in 30 % of the labels (more matches than a sort takes), "rare" in 0.5 % (few enough to sort).
    const word = i % 10 < 3 ? "lampe" : i % 200 === 7 ? "rare" : "chaise";
    const label_sort = `${word} ${(i * 7919) % 1013}`;
    const identifier = `PM-${(i * 31) % 5003}`;
    return {
      id: `prd_${String(i).padStart(6, "0")}`,
      identifier,
      search: `${identifier.toLowerCase()}\u001f${label_sort}`,
      label_sort,
      updated_ms: Date.UTC(2026, 0, 1) + ((i * 13) % 4000) * 60_000,
      status: ["draft", "published", "archived"][i % 3]!,
      family_id: i % 5 === 0 ? "fam_b" : "fam_a",
      category_id: i % 4 === 0 ? "cat_b" : "cat_a",
      label: i % 50 === 0 ? "" : label_sort.toUpperCase(),
      family_label: i % 5 === 0 ? "Famille B" : "Famille A",
      category_label: i % 4 === 0 ? "Catégorie B" : "Catégorie A",
    };
  });
}

function compare(sort: IndexedSort, a: ProductKeyRow, b: ProductKeyRow): number {
  const c =
    sort === "updatedAt"
      ? a.updated_ms - b.updated_ms
      : sort === "status"
        ? STATUS_RANK[a.status]! - STATUS_RANK[b.status]!
        : compareC(
            sort === "label" ? a.label_sort : a.identifier,
            0,
            sort === "label" ? b.label_sort : b.identifier,
            0,
          );
  return c !== 0 ? c : compareC(a.id, 0, b.id, 0);
}

const matches = (r: ProductKeyRow, f: MemoryFilter) =>
  (f.familyId === undefined || r.family_id === f.familyId) &&
  (f.categoryId === undefined || r.category_id === f.categoryId) &&
  (f.updatedSinceMs === undefined || r.updated_ms >= f.updatedSinceMs) &&
  (f.q === undefined || r.search.includes(f.q));

// The ids of a page.
const page = (idx: ProductIndex, ...args: Parameters<ProductIndex["pageSlots"]>) =>
  idx.pageSlots(...args).map((slot) => idx.idAt(slot));

// An index of the rows, each with its position in every order as the brute force sorts them, loaded in batches.
function built(all: ProductKeyRow[], walkChecks: number): ProductIndex {
  const idx = new ProductIndex("1", { walkChecks });
  const at = new Map(all.map((r) => [r.id, {} as Record<`at_${IndexedSort}`, number>]));
  for (const s of INDEXED_SORTS)
    [...all].sort((a, b) => compare(s, a, b)).forEach((r, i) => (at.get(r.id)![`at_${s}`] = i));
  const loaded = all.map((r) => ({ ...r, ...at.get(r.id)! }));
  for (let i = 0; i < loaded.length; i += 1_000) idx.loadRows(loaded.slice(i, i + 1_000));
  idx.finishLoad();
  return idx;
}

const FILTERS: MemoryFilter[] = [
  {},
  { q: "lampe" },
  { q: "rare" },
  { q: "pm-4" },
  { q: "nothing" },
  { q: "lampe", familyId: "fam_b" },
  { q: "rare", categoryId: "cat_b", updatedSinceMs: Date.UTC(2026, 0, 2) },
  { familyId: "fam_b", categoryId: "cat_a" },
  { updatedSinceMs: Date.UTC(2026, 0, 3) },
  { familyId: "fam_b", updatedSinceMs: Date.UTC(2026, 0, 3) },
  { familyId: "fam_none" },
];

describe("ProductIndex.pageSlots", () => {
  const all = rows(12_000);
  // 0: every search's matches found first; 10⁹: every search tested along the order; the default between.
  for (const walkChecks of [0, 1e9, 10_000]) {
    it(`is the brute-force page of every filter, sort and direction (walkChecks ${walkChecks})`, () => {
      const idx = built(all, walkChecks);
      for (const f of FILTERS) {
        const matching = all.filter((r) => matches(r, f));
        expect(idx.count(f), JSON.stringify(f)).toBe(matching.length);
        for (const sort of INDEXED_SORTS) {
          const asc = [...matching].sort((a, b) => compare(sort, a, b)).map((r) => r.id);
          for (const order of ["asc", "desc"] as const) {
            const expected = order === "asc" ? asc : [...asc].reverse();
            for (const [offset, limit] of [
              [0, 100],
              [200, 100],
              [3_550, 100],
              [expected.length - 7, 20],
              [20_000, 5],
            ]) {
              expect(
                page(idx, sort, order, offset!, limit!, f),
                `${JSON.stringify(f)} ${sort}.${order} @${offset}`,
              ).toEqual(expected.slice(Math.max(0, offset!), Math.max(0, offset!) + limit!));
            }
          }
        }
      }
    });
  }

  it("pages a search as the brute force after changes (matches kept, texts changed since they were joined)", () => {
    const idx = built(all, 0);
    // Asked before the changes: their matches are kept, then adjusted by the changes.
    for (const q of ["rare", "lampe", "table 1"]) page(idx, "label", "asc", 0, 50, { q });
    const changed = new Map<string, ProductKeyRow | null>();
    const next = all.map((r) => ({ ...r }));
    for (let i = 0; i < 300; i++) {
      const r = next[i * 37]!;
      r.label_sort = i % 2 ? `rare ${i}` : `table ${i}`;
      r.search = `${r.identifier.toLowerCase()}\u001f${r.label_sort}`;
      r.updated_ms += 1;
      changed.set(r.id, r);
    }
    changed.set(next[5]!.id, null);
    idx.apply(changed, "2");
    const present = next.filter((r) => r.id !== next[5]!.id);
    for (const q of ["rare", "lampe", "table 1"]) {
      const expected = present
        .filter((r) => r.search.includes(q))
        .sort((a, b) => compare("label", a, b))
        .map((r) => r.id);
      expect(page(idx, "label", "asc", 0, 50, { q }), q).toEqual(expected.slice(0, 50));
      expect(page(idx, "label", "desc", 10, 50, { q }), q).toEqual([...expected].reverse().slice(10, 60));
      expect(idx.count({ q }), q).toBe(expected.length);
    }
  });
});

describe("ProductIndex.finishLoad", () => {
  // The positions a build reads are the database's sort; an index whose comparison disagrees could not place a change.
  const positioned = (all: ProductKeyRow[]) =>
    all.map((r, i) => ({ ...r, at_updatedAt: i, at_label: i, at_identifier: i, at_status: i }));
  const sameKeys = (i: number): ProductKeyRow => ({ ...rows(1)[0]!, id: `prd_${i}` });

  it("loads positions that agree with its comparison", () => {
    const idx = new ProductIndex("1");
    idx.loadRows(positioned([sameKeys(1), sameKeys(2), sameKeys(3)]));
    idx.finishLoad();
    expect(idx.pageSlots("label", "desc", 0, 3).map((s) => idx.idAt(s))).toEqual(["prd_3", "prd_2", "prd_1"]);
  });

  it("throws on an order that is not its own, a position taken twice, or one past the products", () => {
    const swapped = positioned([sameKeys(2), sameKeys(1)]);
    const twice = positioned([sameKeys(1), sameKeys(2), sameKeys(3)]).map((r, i) =>
      i === 2 ? { ...r, at_status: 1 } : r,
    );
    const past = positioned([sameKeys(1), sameKeys(2)]).map((r, i) => (i === 1 ? { ...r, at_label: 5 } : r));
    for (const [loaded, message] of [
      [swapped, /the updatedAt order is not this module's/],
      [twice, /the status order is not this module's/],
      [past, /past the products loaded/],
    ] as const) {
      const idx = new ProductIndex("1");
      idx.loadRows(loaded);
      expect(() => idx.finishLoad()).toThrow(message);
    }
  });
});

describe("ProductIndex's kept matches through writes", () => {
  // A write of a few products moves them within the kept matches and orders (out with their old keys, in at their
  // new place): each page after it is the brute force's, and none searches or orders the matches again.
  it("pages every kept filter as the brute force after each of many one-product writes, none found again", () => {
    const all = rows(6_000);
    const idx = built(all, 0);
    const filters: MemoryFilter[] = [
      { q: "lampe" },
      { q: "rare" },
      { q: "lampe", familyId: "fam_b" },
      { familyId: "fam_b", categoryId: "cat_a" },
      { categoryId: "cat_b", updatedSinceMs: Date.UTC(2026, 0, 2) },
    ];
    const sorts = INDEXED_SORTS.map((s, i) => [s, i % 2 ? "desc" : "asc"] as const);
    const check = (present: ProductKeyRow[], step: number) => {
      for (const f of filters) {
        const matching = present.filter((r) => matches(r, f));
        expect(idx.count(f), `${JSON.stringify(f)} after ${step}`).toBe(matching.length);
        for (const [sort, order] of sorts) {
          const asc = [...matching].sort((a, b) => compare(sort, a, b)).map((r) => r.id);
          const expected = order === "asc" ? asc : asc.reverse();
          for (const offset of [0, 150]) {
            expect(
              page(idx, sort, order, offset, 40, f),
              `${JSON.stringify(f)} ${sort} after ${step}`,
            ).toEqual(expected.slice(offset, offset + 40));
          }
        }
      }
    };
    let present = all.map((r) => ({ ...r }));
    check(present, -1);
    const found = { matching: 0, inOrder: 0 };
    const spied = idx as unknown as Record<"matching" | "inOrder", (...a: unknown[]) => unknown>;
    for (const name of ["matching", "inOrder"] as const) {
      const original = spied[name]!.bind(idx);
      spied[name] = (...a: unknown[]) => {
        found[name]++;
        return original(...a);
      };
    }
    for (let step = 0; step < 120; step++) {
      const changed = new Map<string, ProductKeyRow | null>();
      const at = (step * 997) % present.length;
      if (step % 10 === 9) {
        // A deletion, then a creation in another step.
        changed.set(present[at]!.id, null);
        present = present.filter((_, i) => i !== at);
      } else if (step % 10 === 4) {
        const r = { ...rows(1)[0]!, id: `prd_new_${step}`, label_sort: `lampe neuve ${step}` };
        r.search = `${r.identifier.toLowerCase()}\u001f${r.label_sort}`;
        r.family_id = step % 20 === 4 ? "fam_b" : "fam_a";
        changed.set(r.id, r);
        present = [...present, r];
      } else {
        // Its label (in or out of a word), family, category or instant.
        const r = { ...present[at]! };
        if (step % 4 === 0) r.label_sort = step % 8 === 0 ? `rare ${step}` : `table ${step}`;
        if (step % 4 === 1) r.family_id = r.family_id === "fam_b" ? "fam_a" : "fam_b";
        if (step % 4 === 2) r.category_id = r.category_id === "cat_b" ? "cat_a" : "cat_b";
        r.search = `${r.identifier.toLowerCase()}\u001f${r.label_sort}`;
        r.updated_ms = Date.UTC(2026, 0, 1) + ((step * 4_111) % 4_000) * 60_000;
        changed.set(r.id, r);
        present = present.map((p) => (p.id === r.id ? r : p));
      }
      idx.apply(changed, String(step + 2));
      check(present, step);
    }
    expect(found).toEqual({ matching: 0, inOrder: 0 });
  });
});

describe("ProductIndex.row", () => {
  // The item columns a held product's row gives, from its key row: what productColumns' SQL reads.
  const expectedRow = (r: ProductKeyRow) => ({
    id: r.id,
    identifier: r.identifier,
    label: r.label || r.identifier,
    status: r.status,
    family_id: r.family_id,
    family_label: r.family_label,
    category_id: r.category_id,
    category_label: r.category_label,
    updated_at: new Date(r.updated_ms).toISOString(),
  });

  it("gives each product's item columns, after changes of labels, families' labels and deletions", () => {
    const all = rows(3_000);
    const idx = built(all, 10_000);
    for (const r of all.slice(0, 200)) expect(idx.row(r.id)).toEqual(expectedRow(r));
    expect(idx.row("prd_absent")).toBeUndefined();
    // A family relabelled logs each of its products: every one of them comes with the new label.
    const next = all.map((r) => ({ ...r }));
    const changed = new Map<string, ProductKeyRow | null>();
    for (const r of next) {
      if (r.family_id === "fam_b") {
        r.family_label = "Famille B renommée";
        changed.set(r.id, r);
      }
    }
    for (let i = 1; i < 2_000; i += 7) {
      const r = next[i]!;
      r.label = i % 3 === 0 ? "" : `Nouvelle étiquette – ${i} 𝔘`;
      r.identifier = `${r.identifier}-x`;
      r.updated_ms += 1_000;
      changed.set(r.id, r);
    }
    changed.set(next[2]!.id, null);
    idx.apply(changed, "2");
    for (const r of next) {
      if (r.id === next[2]!.id) expect(idx.row(r.id)).toBeUndefined();
      else expect(idx.row(r.id), r.id).toEqual(expectedRow(r));
    }
  });

  it("gives no row for an instant toISOString does not write as SQL does", () => {
    const [r] = rows(1);
    const idx = built([{ ...r!, updated_ms: Date.UTC(10_000, 0, 1) }], 10_000);
    expect(idx.row(r!.id)).toBeUndefined();
  });
});
