import type { Config } from "@/lib/config";

// The preview features (DESIGN §5) that exist so far, by name; the router's table marks each operation of one.
export const PREVIEW_FEATURES = ["writes"] as const;

// A preview feature's name.
export type PreviewFeature = (typeof PREVIEW_FEATURES)[number];

// Whether a preview feature is switched on (`writes`: PUBLIC_API_WRITE_PREVIEW).
export function previewOn(
  feature: PreviewFeature,
  config: Pick<Config, "PUBLIC_API_WRITE_PREVIEW">,
): boolean {
  switch (feature) {
    case "writes":
      return config.PUBLIC_API_WRITE_PREVIEW;
  }
}
