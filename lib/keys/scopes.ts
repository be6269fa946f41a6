// The scopes an API key can hold, in the order the portal lists them.

// The read scopes of V1, in the order the portal lists them.
export const READ_SCOPES = [
  "products:read",
  "families:read",
  "attributes:read",
  "categories:read",
  "media:read",
] as const;
// The write scope, which exists only when the write preview is switched on.
export const WRITE_SCOPE = "products:write" as const;
export type ReadScope = (typeof READ_SCOPES)[number];
export type Scope = ReadScope | typeof WRITE_SCOPE;
