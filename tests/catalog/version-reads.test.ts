// Shared catalog version reads (lib/catalog/list/version-reads.ts), one function isolated on a stand-in
// database whose statements answer when the test says, with the versions of the moment they were sent (a snapshot):
// concurrent requests share reads whatever resources and (on a handle that sees every organization) whatever
// organization they show, and a request never gets a read sent before it asked. The statements themselves are held
// against the database in tests/catalog/version-statements.test.ts.
import { describe, expect, it } from "vitest";
import type { Queryable } from "@/db/client";
import { VersionReads } from "@/lib/catalog/list/version-reads";

// The versions of an organization at a snapshot n: products at n (plus 100 for org_b), families at 2n, media never
// changed (no row); the feed's head at 10n.
function versionsAt(orgId: string, snapshot: number) {
  const products = snapshot + (orgId === "org_b" ? 100 : 0);
  return {
    versions: { products: String(products), families: String(2 * snapshot) },
    feed_head: String(snapshot * 10),
  };
}

function standIn() {
  const state = {
    version: 1,
    sent: [] as { snapshot: number; orgs: string[]; answer: () => void; fail: () => void }[],
  };
  const db: Queryable = {
    query<R>(_sql: string, params?: readonly unknown[]) {
      const snapshot = state.version;
      // orgVersions names one organization, orgsVersions a list of them (a row each, with its id).
      const many = Array.isArray(params?.[0]);
      const orgs = many ? (params![0] as string[]) : [String(params?.[0])];
      return new Promise<R[]>((resolve, reject) => {
        state.sent.push({
          snapshot,
          orgs,
          answer: () =>
            resolve(
              orgs.map((org) => ({ ...(many ? { org_id: org } : {}), ...versionsAt(org, snapshot) })) as R[],
            ),
          fail: () => reject(new Error("statement timeout")),
        });
      });
    },
  };
  return { db, state };
}

// What a read of products sent at a snapshot gives.
const seen = (snapshot: number, orgId = "org_a") => ({
  version: versionsAt(orgId, snapshot).versions.products,
  feedHead: String(snapshot * 10),
});

const settle = () => new Promise((r) => setTimeout(r, 0));

describe("VersionReads", () => {
  it("sends a lone request's read at once", async () => {
    const { db, state } = standIn();
    const reads = new VersionReads();
    const a = reads.read({ db }, "org_a", ["products"]);
    expect(state.sent).toHaveLength(1);
    state.sent[0]!.answer();
    await expect(a).resolves.toEqual(seen(1));
    expect(reads.size).toBe(0);
  });

  it("gives the requests that arrive during a read the next read, sent after it, one for all", async () => {
    const { db, state } = standIn();
    const reads = new VersionReads();
    const first = reads.read({ db }, "org_a", ["products"]);
    // The catalog changes after the first read was sent; a client that made the change then lists it.
    state.version = 2;
    const later = Array.from({ length: 10 }, () => reads.read({ db }, "org_a", ["products"]));
    expect(state.sent).toHaveLength(1); // nobody joined the read in flight, nothing sent yet
    state.sent[0]!.answer();
    await expect(first).resolves.toEqual(seen(1));
    await settle();
    expect(state.sent).toHaveLength(2); // one read for the ten
    expect(state.sent[1]!.snapshot).toBe(2);
    state.sent[1]!.answer();
    expect(await Promise.all(later)).toEqual(Array(10).fill(seen(2)));
    expect(reads.size).toBe(0);
  });

  it("reads the organizations that arrive during a read in one statement, each its own versions", async () => {
    const { db, state } = standIn();
    const reads = new VersionReads();
    const a = reads.read({ db }, "org_a", ["products"]);
    state.version = 2;
    const b = [reads.read({ db }, "org_b", ["products"]), reads.read({ db }, "org_b", ["products"])];
    const a2 = reads.read({ db }, "org_a", ["products"]);
    expect(state.sent).toHaveLength(1);
    state.sent[0]!.answer();
    await expect(a).resolves.toEqual(seen(1));
    await settle();
    expect(state.sent).toHaveLength(2);
    expect(state.sent[1]!.orgs.toSorted()).toEqual(["org_a", "org_b"]); // each organization named once
    state.sent[1]!.answer();
    expect(await Promise.all(b)).toEqual([seen(2, "org_b"), seen(2, "org_b")]);
    await expect(a2).resolves.toEqual(seen(2));
    expect(reads.size).toBe(0);
  });

  it("keeps the organizations of bound handles (row security) apart: a read each, at once", async () => {
    const { db, state } = standIn();
    const reads = new VersionReads();
    const bound = (orgId: string) => ({ db, rowSecurity: { role: "catalog_reader", "app.org_id": orgId } });
    const a = reads.read(bound("org_a"), "org_a", ["products"]);
    const b = reads.read(bound("org_b"), "org_b", ["products"]);
    const b2 = reads.read(bound("org_b"), "org_b", ["products"]);
    expect(state.sent.map((s) => s.orgs)).toEqual([["org_a"], ["org_b"]]);
    state.sent[0]!.answer();
    state.sent[1]!.answer();
    await expect(Promise.all([a, b])).resolves.toEqual([seen(1), seen(1, "org_b")]);
    await settle();
    expect(state.sent.map((s) => s.orgs)).toEqual([["org_a"], ["org_b"], ["org_b"]]);
    state.sent[2]!.answer();
    await expect(b2).resolves.toEqual(seen(1, "org_b"));
    expect(reads.size).toBe(0);
  });

  it("serves the requests of every resource of an organization with one read, each its own versions", async () => {
    const { db, state } = standIn();
    const reads = new VersionReads();
    const products = reads.read({ db }, "org_a", ["products"]);
    state.version = 2;
    const families = reads.read({ db }, "org_a", ["families"]);
    const detail = reads.read({ db }, "org_a", ["products", "media", "families"]);
    expect(state.sent).toHaveLength(1); // both wait for the next read, sent after the one in flight
    state.sent[0]!.answer();
    await expect(products).resolves.toEqual(seen(1));
    await settle();
    expect(state.sent).toHaveLength(2); // one read for both
    state.sent[1]!.answer();
    await expect(families).resolves.toEqual({ version: "4", feedHead: "20" });
    // In the order asked, '0' for a resource never changed.
    await expect(detail).resolves.toEqual({ version: "2.0.4", feedHead: "20" });
    expect(reads.size).toBe(0);
  });

  it("a failed read fails the requests waiting for the next one too (no second bound in a row), and the next request reads again", async () => {
    const { db, state } = standIn();
    const reads = new VersionReads();
    const first = reads.read({ db }, "org_a", ["products"]);
    const second = reads.read({ db }, "org_a", ["products"]);
    const other = reads.read({ db }, "org_b", ["products"]);
    state.sent[0]!.fail();
    await expect(first).rejects.toThrow("statement timeout");
    await expect(second).rejects.toThrow("statement timeout");
    await expect(other).rejects.toThrow("statement timeout");
    await settle();
    // The waiters did not send a read of their own after the failure: they would have waited a second bound.
    expect(state.sent).toHaveLength(1);
    expect(reads.size).toBe(0);
    const third = reads.read({ db }, "org_a", ["products"]);
    expect(state.sent).toHaveLength(2);
    state.sent[1]!.answer();
    await expect(third).resolves.toEqual(seen(1));
    expect(reads.size).toBe(0);
  });
});
