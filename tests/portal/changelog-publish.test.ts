// Publishing and unpublishing a changelog entry shows everywhere at once, with no restart and no rebuild: the
// portal's list (listChangelog), the RSS and Atom feeds (their route handlers, in process) and the search read the
// database on every request. The status is set in the database directly, as the console's editor does. On PGlite
// and on the Postgres server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as atomFeed } from "@/app/changelog/atom.xml/route";
import { GET as rssFeed } from "@/app/changelog/rss.xml/route";
import type { Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { getConfig } from "@/lib/config";
import { getChangelogEntry, listChangelog } from "@/lib/portal/changelog-reader";
import { searchPortal } from "@/lib/portal/search";
import { resetDatabaseHealth } from "@/lib/portal/unavailable";
import { createRuntime } from "@/lib/runtime";
import { swapRuntime } from "../support/api";
import { openEmptyDatabase, type Driver } from "../support/databases";

const ID = "chg_test_publish_0001";
const SLUG = "2026-07-01-quokkaphone-filter";
const WORD = "quokkaphone";

describe.each<Driver>(["pglite", "pg"])("publishing a changelog entry on %s", (driver) => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "chg_publish"));
    await migrate(db);
    await swapRuntime(createRuntime(getConfig(), db));
    resetDatabaseHealth();
    await db.query(
      `insert into changelog_entries (id, slug, title, published_on, type, endpoints, body_md, status)
       values ($1, $2, 'The quokkaphone filter', '2026-07-01', 'Added', array['/public/v1/products'],
               'Filter products by **${WORD}**.', 'draft')`,
      [ID, SLUG],
    );
  });

  afterAll(async () => {
    await swapRuntime(undefined);
    await close?.();
  });

  async function setStatus(status: "draft" | "published") {
    await db.query("update changelog_entries set status = $1, updated_at = now() where id = $2", [
      status,
      ID,
    ]);
  }

  // Where the entry shows: the portal's list, the two feeds, the search (with the page's own path to the database
  // and with an explicit handle).
  async function seen() {
    const rss = await (await rssFeed()).text();
    const atom = await (await atomFeed()).text();
    resetDatabaseHealth();
    const viaRuntime = await searchPortal(WORD);
    const viaDb = await searchPortal(WORD, { db });
    expect(viaRuntime.changelogUnavailable).toBe(false);
    return {
      list: (await listChangelog(db)).some((e) => e.id === ID),
      listViaRuntime: (await listChangelog()).some((e) => e.id === ID),
      rss: rss.includes(SLUG) && rss.includes(WORD),
      atom: atom.includes(SLUG) && atom.includes(WORD),
      search: viaRuntime.hits.some((h) => h.url === `/changelog#${SLUG}`),
      searchDb: viaDb.hits.some((h) => h.kind === "Changelog" && h.url === `/changelog#${SLUG}`),
    };
  }

  const everywhere = {
    list: true,
    listViaRuntime: true,
    rss: true,
    atom: true,
    search: true,
    searchDb: true,
  };
  const nowhere = {
    list: false,
    listViaRuntime: false,
    rss: false,
    atom: false,
    search: false,
    searchDb: false,
  };

  it("the seeded entries stay published, and a draft shows only in the editor's list", async () => {
    const all = await listChangelog(db, { drafts: true });
    expect(all.filter((e) => e.id !== ID).every((e) => e.status === "published")).toBe(true);
    expect(all.find((e) => e.id === ID)?.status).toBe("draft");
    expect((await getChangelogEntry(db, ID))?.status).toBe("draft");
    expect(await getChangelogEntry(db, "chg_nothing")).toBeUndefined();
    expect(await seen()).toEqual(nowhere);
  });

  it("publishing shows the entry everywhere at once; unpublishing hides it everywhere at once", async () => {
    await setStatus("published");
    expect(await seen()).toEqual(everywhere);
    expect((await getChangelogEntry(db, ID))?.status).toBe("published");
    await setStatus("draft");
    expect(await seen()).toEqual(nowhere);
    expect((await listChangelog(db, { drafts: true })).some((e) => e.id === ID)).toBe(true);
    await setStatus("published");
    expect(await seen()).toEqual(everywhere);
  });

  it("the status accepts only draft and published", async () => {
    await expect(
      db.query("update changelog_entries set status = 'archived' where id = $1", [ID]),
    ).rejects.toThrow();
  });
});

describe("search while the changelog's database is unreachable", () => {
  it("answers from guides and reference and says the changelog could not be searched", async () => {
    const down = {
      query: () => Promise.reject(new Error("connect ECONNREFUSED")),
    } as unknown as Database;
    const result = await searchPortal("perPage", { db: down });
    expect(result.changelogUnavailable).toBe(true);
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.hits.every((h) => h.kind !== "Changelog")).toBe(true);
  });
});
