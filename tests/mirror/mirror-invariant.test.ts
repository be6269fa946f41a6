// The mirror invariant (issue 24, item 4): a client that exports every resource once, possibly interrupted and resumed
// with `after`, then follows the change feed from the cursor the export gave, applying upserts and deletes to a copy
// in memory, holds exactly what a fresh export holds, whatever was written meanwhile and by whom. A property test
// (fast-check) on both drivers: random sequences of writes (plain SQL as the product-information application writes,
// lib/demo/catalog-activity.ts; and creations through the write preview's POST, with a body built from the API)
// interleaved with the client's steps (an export's part, a feed page of a few events), then the client catches up
// and its copy must deep-equal a fresh export of each resource. All of it through the API's router (the export,
// the feed, the POST), as an integrator's client reads it. The seed of a failing run is printed by fast-check; a
// client that ignores `op: "delete"` fails it on both drivers (shrunk to: export channels, export products, delete a
// product).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIRRORED, type Item, type Mirrored } from "@/lib/catalog/resources/items";
import { readProductDetails } from "@/lib/catalog/resources/product-detail";
import { applyChange, CHANGE_KINDS, type Change } from "@/lib/demo/catalog-activity";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { call, readExport, setupApi, type ApiFixture, type ExportEnd } from "../support/api";
import { creatableBodies, insertKey, type CreatableBody } from "../support/write-preview";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// One event of the feed, as GET /public/v1/changes gives it.
interface FeedEvent {
  cursor: string;
  type: Mirrored;
  id: string;
  op: "upsert" | "delete";
  item: Item | null;
}

// Where the client reads: an export of a resource from `after` (the items it streamed before it was cut after
// `stopAfter` of them, else all of them and the end line), and a page of the feed.
interface Source {
  exportResource(
    type: Mirrored,
    after: string | undefined,
    stopAfter: number | undefined,
  ): Promise<{ items: Item[]; end?: ExportEnd }>;
  changes(after: string, limit: number): Promise<{ data: FeedEvent[]; cursor: string; hasMore: boolean }>;
}

// The order the client exports in: the smallest first, so that its first export, which gives the cursor the feed is
// followed from, is over at once, and the large ones come after it (each may then be cut and resumed).
const EXPORT_ORDER: readonly Mirrored[] = [
  "channels",
  "products",
  "families",
  "attributes",
  "categories",
  "media",
];

// The client under test: the copy it keeps, by resource and id, and where it is.
//
// Where it follows the feed from: the end cursor of its first export that ran to its end line. Every export after
// it, whole or resumed, reads a later snapshot, so every change its lines may have missed has a later cursor. A cut
// export has no end line: until the client has that first cursor, a cut export is dropped and started over (its
// lines came from a snapshot whose cursor it never got); once it has it, a cut export resumes with `after`. (The end
// cursor of a resumed export is too late for the lines read before the cut: a product deleted between the two
// parts would stay in the copy. fast-check found exactly that when the client followed from its exports' lowest end
// cursor instead.)
class Mirror {
  readonly copy = new Map<Mirrored, Map<string, Item>>(MIRRORED.map((t) => [t, new Map()]));
  private exporting = 0; // index in EXPORT_ORDER of the resource being exported
  private resumeAfter: string | undefined; // the last id read of an export that was cut
  private cursor: string | undefined; // the feed's cursor: the first end line's, then each page's

  constructor(private readonly source: Source) {}

  // One step: the next part of the export (cut after `cut` of its items when given), or one page of the feed.
  async step(cut: number | undefined, limit: number): Promise<void> {
    if (this.exporting < EXPORT_ORDER.length) return this.exportPart(cut);
    await this.follow(limit);
  }

  // Exports what is left, then follows the feed to its end.
  async catchUp(): Promise<void> {
    while (this.exporting < EXPORT_ORDER.length) await this.exportPart(undefined);
    while (await this.follow(50));
  }

  private async exportPart(cut: number | undefined): Promise<void> {
    const type = EXPORT_ORDER[this.exporting]!;
    const { items, end } = await this.source.exportResource(type, this.resumeAfter, cut);
    if (!end && this.cursor === undefined) return; // cut before any end line: start it over
    for (const item of items) this.copy.get(type)!.set(item.id, item);
    if (!end) {
      this.resumeAfter = items.at(-1)?.id ?? this.resumeAfter;
      return;
    }
    this.cursor ??= end.cursor;
    this.resumeAfter = undefined;
    this.exporting++;
  }

  // One page of the feed applied; whether there is more.
  private async follow(limit: number): Promise<boolean> {
    const page = await this.source.changes(this.cursor!, limit);
    for (const e of page.data) {
      if (e.op === "delete") this.copy.get(e.type)!.delete(e.id);
      else this.copy.get(e.type)!.set(e.id, e.item!);
    }
    this.cursor = page.cursor;
    return page.hasMore;
  }
}

// The export and the feed through the API's router (GET /public/v1/export/{resource} and /changes), with a key that
// reads every resource.
function apiSource(key: string): Source {
  return {
    async exportResource(type, after, stopAfter) {
      const path = `/public/v1/export/${type}${after === undefined ? "" : `?after=${encodeURIComponent(after)}`}`;
      // As a client does with a 429 of EXPORTS_PER_KEY: the export it cut a moment ago may still hold its slot on a
      // busy machine (CI saw it once), so it tries again shortly.
      for (let tries = 1; ; tries++) {
        const { status, items, end } = await readExport(path, key, stopAfter);
        if (status === 429 && tries < 20) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        expect(status, path).toBe(200);
        return { items, end };
      }
    },
    async changes(after, limit) {
      const res = await call(`/public/v1/changes?after=${after}&limit=${limit}`, { key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    },
  };
}

// A step of a run: a write, a step of the client, or the runtime's refresher of products' documents catching up
// (between two of its runs, exports and the feed serve documents the log proves current, else products read anew).
type Step =
  | { do: "sql"; change: Change }
  | { do: "post"; pick: number }
  | { do: "client"; cut: number | undefined; limit: number }
  | { do: "refresh" };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ kind: fc.constantFrom(...CHANGE_KINDS), pick: fc.nat(), salt: fc.nat() })
      .map((change) => ({ do: "sql" as const, change })),
  },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ do: "post" as const, pick })) },
  { weight: 1, arbitrary: fc.constant({ do: "refresh" as const }) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        cut: fc.option(fc.nat({ max: 150 }), { nil: undefined }),
        limit: fc.integer({ min: 1, max: 5 }),
      })
      .map(({ cut, limit }) => ({ do: "client" as const, cut, limit })),
  },
);

describe.each(["pglite", "pg"] as const)("the mirror invariant on %s", (driver) => {
  let fx: ApiFixture;
  let org: { id: string; slug: string };
  let writer = "";
  let reader = "";
  // Creatable bodies built from the API (the SKU made new on each creation).
  let bodies: CreatableBody[] = [];
  let source: Source;
  let posted = 0;

  beforeAll(async () => {
    fx = await setupApi(driver, { PUBLIC_API_PREVIEW: "writes,details,changes,export" });
    // globex: the smaller demo organization (400 products), so that a run's two whole exports stay quick.
    org = { id: fx.globex.orgId, slug: fx.globex.slug };
    reader = fx.globex.full;
    writer = await insertKey(fx, org.id, [...READ_SCOPES, WRITE_SCOPE]);
    const get = async (path: string): Promise<Json> => {
      const res = await call(path, { key: reader });
      expect(res.status, path).toBe(200);
      return res.body as Json;
    };
    bodies = await creatableBodies(get);
    source = apiSource(reader);
    // Every product's document built: the runs start with documents to serve.
    expect(await fx.runtime.background.documents.runOnce()).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await fx?.close();
  });

  async function write(step: Exclude<Step, { do: "client" }>): Promise<void> {
    if (step.do === "refresh") {
      await fx.runtime.background.documents.runOnce();
      return;
    }
    if (step.do === "sql") {
      await applyChange(fx.db, org.id, step.change);
      return;
    }
    const body = bodies[step.pick % bodies.length]!;
    const sku = `MIRROR-${driver}-${++posted}-${Date.now().toString(36)}`;
    const res = await call("/public/v1/products", {
      key: writer,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...body, values: { ...body.values, sku } }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }

  // A fresh, whole export of every resource: what the copy must be.
  async function freshExport(): Promise<Map<Mirrored, Map<string, Item>>> {
    const out = new Map<Mirrored, Map<string, Item>>();
    for (const type of MIRRORED) {
      const { items, end } = await source.exportResource(type, undefined, undefined);
      expect(end?.count).toBe(items.length);
      // Products are served from their documents where the log proves them current: the fresh export's are held
      // against products read anew, so that the copy is compared with the truth, not with the same documents.
      if (type === "products")
        expect(items).toEqual(
          await readProductDetails(
            await fx.runtime.catalog(),
            org,
            { after: "", limit: 100_000 },
            fx.config.baseUrl,
          ),
        );
      out.set(type, new Map(items.map((i) => [i.id, i])));
    }
    return out;
  }

  it("a copy made by export then feed equals a fresh export, whatever was written meanwhile", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 30, size: "max" }), async (steps) => {
        const mirror = new Mirror(source);
        for (const step of steps) {
          if (step.do === "client") await mirror.step(step.cut, step.limit);
          else await write(step);
        }
        await mirror.catchUp();
        const fresh = await freshExport();
        for (const type of MIRRORED) {
          const copy = mirror.copy.get(type)!;
          const want = fresh.get(type)!;
          const extra = [...copy.keys()].filter((id) => !want.has(id));
          const missing = [...want.keys()].filter((id) => !copy.has(id));
          expect({ type, extra, missing }).toEqual({ type, extra: [], missing: [] });
          for (const [id, item] of want) expect(copy.get(id), `${type} ${id}`).toEqual(item);
        }
      }),
      // 20 runs take 5 to 15 s per driver; a failure's shrinking (each try a run) is cut after 90 s and the smallest
      // counterexample found so far is printed with the seed.
      { numRuns: 20, interruptAfterTimeLimit: 90_000 },
    );
  }, 120_000);
});
