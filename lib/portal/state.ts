// The portal's part of the runtime: its reference and search index, built on first use and kept, and what it last
// saw of its database.
import { definePart, type CacheSlot } from "@/lib/runtime";
import type { Json, RefEndpoint } from "./reference/types";

// The reference as built for one configuration (`key`: write preview and base URL): the OpenAPI document and the
// endpoints read from it (lib/portal/reference.ts).
export interface ReferenceDocument {
  key: string;
  doc: Json;
  endpoints: RefEndpoint[];
}

// One searchable section: a guide section, an endpoint or one of its parameters, a changelog entry
// (lib/portal/search.ts).
export interface SearchDoc {
  title: string;
  url: string;
  kind: "Guide" | "Reference" | "Changelog";
  text: string;
}

// What the portal last saw of its database (a read's outcome or a probe), and the probe under way, if any.
export interface DatabaseHealth {
  reachable?: boolean;
  at: number;
  probing?: Promise<boolean>;
}

// The portal's state.
export interface PortalState {
  /** The OpenAPI document and its endpoints, for the one (write preview, base URL) it was last built for. */
  reference: CacheSlot<ReferenceDocument>;
  /** The search index of the guides and the reference (lib/portal/search.ts), built on the first search. */
  searchDocs: CacheSlot<SearchDoc[]>;
  /** What lib/portal/unavailable.ts last learnt of the database. */
  databaseHealth: DatabaseHealth;
}

// The portal's part, read with `rt.part(portalState)`.
export const portalState = definePart("portal", (): PortalState => ({
  reference: {},
  searchDocs: {},
  databaseHealth: { at: 0 },
}));
