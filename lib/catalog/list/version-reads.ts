import "server-only";
import type { Queryable } from "@/db/client";
import { catalogVersions, type CatalogResource, type VersionsRead } from "./count-cache";

// Version reads shared by the requests of an organization's list (or detail: the versions of everything it shows)
// that ask at the same moment. A request never joins a read already sent: it may have been taken before a change the
// request must see (a client that changes the catalog, then lists it). It joins the next read instead, sent as soon
// as the one in flight returns (or shares its failure). Under load one read then serves every request of that
// (organization, resources) that arrived during a round trip; a request alone is read at once.
export class VersionReads {
  private readonly reads = new Map<string, ReadState>();

  /** The organization's versions of the resources and its feed's head (catalogVersions), from a read sent after
   * this call. */
  read(db: Queryable, orgId: string, resources: readonly CatalogResource[]): Promise<VersionsRead> {
    const key = `${orgId}\u0000${resources.join(",")}`;
    const state = this.reads.get(key);
    if (!state) return this.send(db, key, orgId, resources, {});
    if (!state.next) {
      let resolve!: (v: Promise<VersionsRead>) => void;
      const promise = new Promise<VersionsRead>((r) => (resolve = r));
      state.next = { promise, resolve, db };
    }
    return state.next.promise;
  }

  /** (Organization, resources) pairs with a read in flight. */
  get size(): number {
    return this.reads.size;
  }

  private send(
    db: Queryable,
    key: string,
    orgId: string,
    resources: readonly CatalogResource[],
    state: ReadState,
  ): Promise<VersionsRead> {
    this.reads.set(key, state);
    const read = catalogVersions(db, orgId, resources);
    const done = (failure?: { error: unknown }) => {
      const waiting = state.next;
      state.next = undefined;
      // A read that failed fails the requests waiting for the next one too: an error shows no version they could
      // miss, and the database that just failed (unreachable, frozen, timing out) would make each of them wait a
      // second bound in a row (the read in flight, then their own: 2.1-2.2 s under SIGSTOP with the default 1 s
      // bounds, past the 2 s every answer must keep; tests/faults/postgres.test.ts).
      if (waiting && failure) {
        this.reads.delete(key);
        waiting.resolve(Promise.reject(failure.error));
      } else if (waiting) waiting.resolve(this.send(waiting.db, key, orgId, resources, state));
      else this.reads.delete(key);
    };
    read.then(
      () => done(),
      (error: unknown) => done({ error }),
    );
    return read;
  }
}

// An (organization, resources)' read in flight, and the requests waiting for the next one (on the first waiter's
// handle).
interface ReadState {
  next?: { promise: Promise<VersionsRead>; resolve: (read: Promise<VersionsRead>) => void; db: Queryable };
}
