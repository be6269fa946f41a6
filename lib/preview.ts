// The preview features (docs/design.md, Preview features) built so far, in the order every list of them follows. Each
// is off by default: V1 is what the contract publishes, byte for byte; PUBLIC_API_PREVIEW turns features on by name.
export const PREVIEW_FEATURES = ["writes", "details", "changes", "export", "webhooks"] as const;

// A preview feature's name.
export type PreviewFeature = (typeof PREVIEW_FEATURES)[number];

// What each feature adds, in a line (the start-up banner, the console, the docs).
export const PREVIEW_FEATURE_TEXT: Readonly<Record<PreviewFeature, string>> = {
  writes: "writes (POST /public/v1/products, scope products:write; turns details on)",
  details:
    "details (GET /public/v1/products/{id}, /families/{id}, /attributes/{id} and /channels: a product's values, what a family requires, an attribute's options; ids= on every list, identifiers= on products)",
  changes:
    "changes (GET /public/v1/changes: the organization's change feed, deletions included, with cursors and long polling)",
  export:
    "export (GET /public/v1/export/{resource}: a whole resource as NDJSON from one snapshot, ending with its change-feed cursor)",
  webhooks:
    "webhooks (the change feed pushed to your endpoints: Standard Webhooks signatures, retries over 24 h, redelivery and replay in the console; turns changes on)",
};

// The value of PUBLIC_API_PREVIEW read: `all`, `none` (or empty), or names separated by commas (spaces and case
// ignored). Returns the features in PREVIEW_FEATURES' order, or the names it does not know.
export function parsePreviewList(text: string): { features: PreviewFeature[] } | { unknown: string[] } {
  const names = text
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 1 && names[0] === "all") return { features: [...PREVIEW_FEATURES] };
  if (names.length === 1 && names[0] === "none") return { features: [] };
  const unknown = names.filter((n) => !(PREVIEW_FEATURES as readonly string[]).includes(n));
  if (unknown.length) return { unknown };
  return { features: PREVIEW_FEATURES.filter((f) => names.includes(f)) };
}

// What a feature needs of the others: writing a product takes reading what its body is built from (a family's
// required attributes, an attribute's options: `details`) and the product created (its Location). Webhooks push the
// change feed's events: `changes`.
const NEEDS: Readonly<Partial<Record<PreviewFeature, readonly PreviewFeature[]>>> = {
  writes: ["details"],
  webhooks: ["changes"],
};

// The features named and those they need, in PREVIEW_FEATURES' order.
export function withNeeds(named: readonly PreviewFeature[]): PreviewFeature[] {
  const on = new Set(named);
  for (const f of named) for (const n of NEEDS[f] ?? []) on.add(n);
  return PREVIEW_FEATURES.filter((f) => on.has(f));
}

// Whether a preview feature is switched on.
export function previewOn(
  feature: PreviewFeature,
  config: { readonly preview: readonly PreviewFeature[] },
): boolean {
  return config.preview.includes(feature);
}
