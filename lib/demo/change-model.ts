// The changes lib/demo/catalog-activity.ts writes, as data: the kinds, a change to write and a change written.

// The kinds of change, each touching what its name says.
export const CHANGE_KINDS = [
  "create",
  "relabel",
  "status",
  "value",
  "delete",
  "family-relabel",
  "category-relabel",
  "link-media",
  "unlink-media",
  "channel-name",
  "media-visibility",
  "option-relabel",
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

// One change: `pick` chooses the object it touches among the organization's candidates (modulo their number, in id
// order), `salt` what it writes (a label's number, a status, a value).
export interface Change {
  kind: ChangeKind;
  pick: number;
  salt: number;
}

// A change written: the object it was made on (a product for most), a line saying what it did, and the id of its
// transaction (its events' cursors are in catalog_change_commits under that id once committed).
export interface AppliedChange {
  kind: ChangeKind;
  type: "products" | "families" | "categories" | "media" | "attributes";
  id: string;
  text: string;
  txid: string;
}
