import "server-only";
import type { LocalSettings, Queryable } from "@/db/client";
import {
  orgVersions,
  orgsVersions,
  versionsOf,
  type CatalogResource,
  type OrgVersions,
  type VersionsRead,
} from "./count-cache";

// Version reads shared by the requests that ask at the same moment, whatever they show (a list its resource, a detail
// everything it shows): a read takes every version of an organization (orgVersions), and each request keeps those of
// its own resources. A request never joins a read already sent: it may have been taken before a change the request
// must see (a client that changes the catalog, then lists it). It joins the next read instead, sent as soon as the one
// in flight returns (or shares its failure). On a handle that sees every organization, one read is in flight at a
// time and the next one reads all the organizations asked meanwhile in one statement (orgsVersions); on a handle
// bound to one organization (row security), each organization has its own. Under load one read then serves every
// request that arrived during a round trip; a request alone is read at once.
export class VersionReads {
  // The reads in flight: SHARED for the handles that see every organization, else per organization.
  private readonly reads = new Map<string, ReadState>();

  /** The organization's versions of the resources and its feed's head (catalogVersions), from a read sent after
   * this call, on `on.db` (bound to the organization when `on.rowSecurity` is set). */
  async read(
    on: { db: Queryable; rowSecurity?: LocalSettings },
    orgId: string,
    resources: readonly CatalogResource[],
  ): Promise<VersionsRead> {
    return versionsOf(await this.readAll(on.db, on.rowSecurity ? `org:${orgId}` : SHARED, orgId), resources);
  }

  /** Reads in flight. */
  get size(): number {
    return this.reads.size;
  }

  private readAll(db: Queryable, gate: string, orgId: string): Promise<OrgVersions> {
    const state = this.reads.get(gate);
    if (!state) return this.send(db, gate, {}, [orgId]).then((read) => read.get(orgId)!);
    state.next ??= { db, orgs: new Map() };
    let waiting = state.next.orgs.get(orgId);
    if (!waiting) {
      let resolve!: (v: Promise<OrgVersions>) => void;
      const promise = new Promise<OrgVersions>((r) => (resolve = r));
      waiting = { promise, resolve };
      state.next.orgs.set(orgId, waiting);
    }
    return waiting.promise;
  }

  private send(
    db: Queryable,
    gate: string,
    state: ReadState,
    orgIds: readonly string[],
  ): Promise<Map<string, OrgVersions>> {
    this.reads.set(gate, state);
    const read =
      orgIds.length === 1
        ? orgVersions(db, orgIds[0]!).then((v) => new Map([[orgIds[0]!, v]]))
        : orgsVersions(db, orgIds);
    const done = (failure?: { error: unknown }) => {
      const next = state.next;
      state.next = undefined;
      // A read that failed fails the requests waiting for the next one too: an error shows no version they could
      // miss, and the database that just failed (unreachable, frozen, timing out) would make each of them wait a
      // second bound in a row (the read in flight, then their own: 2.1-2.2 s under SIGSTOP with the default 1 s
      // bounds, past the 2 s every answer must keep; tests/faults/postgres.test.ts).
      if (next && failure) {
        this.reads.delete(gate);
        for (const waiting of next.orgs.values()) waiting.resolve(Promise.reject(failure.error));
      } else if (next) {
        const read = this.send(next.db, gate, state, [...next.orgs.keys()]);
        for (const [orgId, waiting] of next.orgs) waiting.resolve(read.then((r) => r.get(orgId)!));
      } else this.reads.delete(gate);
    };
    read.then(
      () => done(),
      (error: unknown) => done({ error }),
    );
    return read;
  }
}

// The gate of the handles that see every organization (a bound one is `org:<id>`).
const SHARED = "shared";

// A read in flight, and the organizations waiting for the next one (on the first waiter's handle: under row security,
// a handle bound to that same organization).
interface ReadState {
  next?: {
    db: Queryable;
    orgs: Map<string, { promise: Promise<OrgVersions>; resolve: (read: Promise<OrgVersions>) => void }>;
  };
}
