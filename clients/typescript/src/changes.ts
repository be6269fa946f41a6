// The change feed (`GET /public/v1/changes`): one page, or the pages from a cursor followed for ever with long
// polling (`wait`). A page with `hasMore` is followed by the next request at once; a page without waits on the
// server for the next change. Aborting the signal ends the follow cleanly, whether it waits on the server, in a
// retry's pause or in the caller's hands.
import type { Http } from "./http.js";
import type { ChangesPage, ChangesQuery } from "./types.js";

// What following the feed takes: the cursor to start after, the resources, the page size (default 1000), the long
// poll's wait in seconds (default 30) and the signal that ends it.
export interface FollowOptions {
  after: string;
  types?: readonly string[];
  limit?: number;
  wait?: number;
  signal?: AbortSignal;
}

const PATH = "/public/v1/changes";

// One page of the feed after `query.after`. A cursor past the retention throws CatalogApiError 410
// PUBLIC_API_CURSOR_EXPIRED.
export function changesPage(http: Http, query: ChangesQuery, signal?: AbortSignal): Promise<ChangesPage> {
  const { after, types, limit, wait } = query;
  return http.json<ChangesPage>(PATH, { query: { after, types, limit, wait }, signal });
}

// The pages of the feed from `options.after`, each as the server answers it, until the signal aborts.
export async function* followPages(
  http: Http,
  options: FollowOptions,
): AsyncGenerator<ChangesPage, void, undefined> {
  const { types, signal } = options;
  const limit = options.limit ?? 1000;
  const wait = options.wait ?? 30;
  let after = options.after;
  while (!signal?.aborted) {
    let page: ChangesPage;
    try {
      page = await changesPage(http, { after, types, limit, wait }, signal);
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
    yield page;
    after = page.cursor;
  }
}
