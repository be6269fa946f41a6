// Errors of the catalog itself (not of HTTP): lib/public-api maps each to its answer.

// A filter names something the organization does not have, where the catalog cannot answer an empty list
// (an unknown channel: labels cannot be read in it).
export class UnknownReferenceError extends Error {
  constructor(
    /** The query field that named it. */
    readonly field: "channelId",
    /** The value as given. */
    readonly value: string,
  ) {
    super(`${field}: no such ${field === "channelId" ? "channel" : "reference"} in the organization`);
    this.name = "UnknownReferenceError";
  }
}

// A request waited its bound for an exact count that another statement is still running: the count goes on and is
// remembered, so the same request a few seconds later is answered from it.
export class CountPendingError extends Error {
  constructor(readonly waitedMs: number) {
    super(`the exact count did not finish within ${waitedMs} ms; it goes on in the background`);
    this.name = "CountPendingError";
  }
}

// One offending field of a write: a JSON path ("values.price.EUR"), a stable code, French text.
export interface WriteIssue {
  field: string;
  code: string;
  message: string;
}

// Why the catalog refused a write: a malformed request, a family or category not in the organization, a unique
// value already taken, or well-formed data that breaks a rule of the family. lib/public-api maps each to a status.
export type WriteRefusal =
  "invalid" | "family_not_found" | "category_not_found" | "conflict" | "unprocessable";

// The catalog refused a write; `issues` names each offending field.
export class CatalogWriteError extends Error {
  constructor(
    readonly refusal: WriteRefusal,
    readonly issues: WriteIssue[],
  ) {
    super(`${refusal}: ${issues.map((i) => `${i.field} ${i.code}`).join(", ")}`);
    this.name = "CatalogWriteError";
  }
}

// A change-feed cursor the organization's feed cannot continue from: older than its retention (`expired`: the events
// after it were pruned; the client re-exports), or past its head (`unknown`: not a cursor of this organization).
export class CursorError extends Error {
  constructor(
    readonly reason: "expired" | "unknown",
    readonly cursor: string,
    /** The oldest cursor the feed still continues from (`expired`), or its head (`unknown`). */
    readonly bound: string,
  ) {
    super(`cursor ${cursor}: ${reason} (${reason === "expired" ? "oldest kept" : "head"} ${bound})`);
    this.name = "CursorError";
  }
}
