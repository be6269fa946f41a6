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
