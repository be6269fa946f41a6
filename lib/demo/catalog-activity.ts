import type { Database } from "@/db/client";
import type { AppliedChange, Change, ChangeKind } from "./change-model";
import { WRITES } from "./change-writes";

// Changes to an organization's catalog written with plain SQL, one transaction each, as the product-information
// application writes them (this API's write preview is not involved): what `npm run demo:activity` plays to show the
// change feed move, and what the mirror property test interleaves with a client that exports and follows the feed.
// A change is data (its kind and two numbers), so that a generator (a seeded random one, or fast-check) chooses it
// and the same change on the same catalog writes the same thing.

export { CHANGE_KINDS, type AppliedChange, type Change, type ChangeKind } from "./change-model";

// Writes one change in a transaction of its own; undefined (nothing written) when the catalog has nothing it can
// touch.
export async function applyChange(
  db: Database,
  orgId: string,
  change: Change,
): Promise<AppliedChange | undefined> {
  return db.transaction(async (tx) => {
    const done = await WRITES[change.kind](tx, orgId, change);
    if (!done) return undefined;
    const [{ txid }] = (await tx.query<{ txid: string }>("select pg_current_xact_id()::text as txid")) as [
      { txid: string },
    ];
    return { kind: change.kind, ...done, txid };
  });
}

// The cursors a committed change's events got in the organization's feed (first and last), or undefined when it
// noted none (a change the feed does not carry).
export async function changeCursors(
  db: Database,
  orgId: string,
  txid: string,
): Promise<{ first: string; last: string } | undefined> {
  const [row] = await db.query<{ first: string; last: string }>(
    `select first_cursor::text as first, last_cursor::text as last
       from catalog_change_commits where org_id = $1 and txid = $2::xid8`,
    [orgId, txid],
  );
  return row;
}

// The kinds in the order `npm run demo:activity` plays them, round after round: every kind within one round (a short
// run shows each, a delete included), the everyday ones (labels, values, status) more often than the rare ones (a
// family or category relabelled moves all of its products).
export const ACTIVITY_ROUND: readonly ChangeKind[] = [
  "create",
  "relabel",
  "value",
  "status",
  "link-media",
  "delete",
  "channel-name",
  "relabel",
  "value",
  "family-relabel",
  "unlink-media",
  "create",
  "value",
  "media-visibility",
  "status",
  "category-relabel",
  "relabel",
  "option-relabel",
];
