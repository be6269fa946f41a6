import "server-only";
import type { Queryable } from "@/db/client";
import {
  orgVersions,
  versionsOf,
  type CatalogResource,
  type OrgVersions,
  type VersionsRead,
} from "./count-cache";

// Version reads shared by the requests of an organization that ask at the same moment, whatever they show (a list
// its resource, a detail everything it shows): a read takes every version of the organization (orgVersions), and each
// request keeps those of its own resources. A request never joins a read already sent: it may have been taken before
// a change the request must see (a client that changes the catalog, then lists it). It joins the next read instead,
// sent as soon as the one in flight returns (or shares its failure). Under load one read then serves every request of
// that organization that arrived during a round trip; a request alone is read at once.
export class VersionReads {
  private readonly reads = new Map<string, ReadState>();

  /** The organization's versions of the resources and its feed's head (catalogVersions), from a read sent after
   * this call. */
  async read(db: Queryable, orgId: string, resources: readonly CatalogResource[]): Promise<VersionsRead> {
    return versionsOf(await this.readAll(db, orgId), resources);
  }

  /** Organizations with a read in flight. */
  get size(): number {
    return this.reads.size;
  }

  private readAll(db: Queryable, orgId: string): Promise<OrgVersions> {
    const state = this.reads.get(orgId);
    if (!state) return this.send(db, orgId, {});
    if (!state.next) {
      let resolve!: (v: Promise<OrgVersions>) => void;
      const promise = new Promise<OrgVersions>((r) => (resolve = r));
      state.next = { promise, resolve, db };
    }
    return state.next.promise;
  }

  private send(db: Queryable, orgId: string, state: ReadState): Promise<OrgVersions> {
    this.reads.set(orgId, state);
    const read = orgVersions(db, orgId);
    const done = (failure?: { error: unknown }) => {
      const waiting = state.next;
      state.next = undefined;
      // A read that failed fails the requests waiting for the next one too: an error shows no version they could
      // miss, and the database that just failed (unreachable, frozen, timing out) would make each of them wait a
      // second bound in a row (the read in flight, then their own: 2.1-2.2 s under SIGSTOP with the default 1 s
      // bounds, past the 2 s every answer must keep; tests/faults/postgres.test.ts).
      if (waiting && failure) {
        this.reads.delete(orgId);
        waiting.resolve(Promise.reject(failure.error));
      } else if (waiting) waiting.resolve(this.send(waiting.db, orgId, state));
      else this.reads.delete(orgId);
    };
    read.then(
      () => done(),
      (error: unknown) => done({ error }),
    );
    return read;
  }
}

// An organization's read in flight, and the requests waiting for the next one (on the first waiter's handle: under
// row security, a handle bound to that same organization).
interface ReadState {
  next?: { promise: Promise<OrgVersions>; resolve: (read: Promise<OrgVersions>) => void; db: Queryable };
}
