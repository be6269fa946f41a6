import { PREVIEW_FEATURE_TEXT, type PreviewFeature } from "../../lib/preview";

// The lines `npm start` prints once the server answers: where it runs and how long start-up took, the API's
// addresses, and the preview features that are on (no line when none is: V1 as published).
export function readyBanner(opts: {
  baseUrl: string;
  startupMs: number;
  buildMs: number;
  previews: readonly PreviewFeature[];
}): string[] {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const build = opts.buildMs ? ` (build ${seconds(opts.buildMs)})` : "";
  const lines = [
    "",
    `Ready: ${opts.baseUrl} — start-up took ${seconds(opts.startupMs)}${build}.`,
    `API: ${opts.baseUrl}/public/v1/products  ·  OpenAPI: ${opts.baseUrl}/public/v1/openapi.json`,
  ];
  if (opts.previews.length) {
    const named = opts.previews.map((name) => PREVIEW_FEATURE_TEXT[name]);
    lines.push(`Preview features on (not part of V1): ${named.join(", ")}.`);
  }
  return lines;
}
