import type { Config } from "../../lib/config";

// What each preview feature adds, as the start-up banner names it; a name missing here is printed as it is.
export const PREVIEW_FEATURE_TEXT: Readonly<Record<string, string>> = {
  writes: "writes (POST /public/v1/products, scope products:write)",
};

// The names of the preview features a configuration switches on, in a stable order (today one switch,
// PUBLIC_API_WRITE_PREVIEW, for `writes`; a list such as PUBLIC_API_PREVIEW=writes,details will feed the same names).
export function previewFeatures(config: Pick<Config, "PUBLIC_API_WRITE_PREVIEW">): string[] {
  return config.PUBLIC_API_WRITE_PREVIEW ? ["writes"] : [];
}

// The lines `npm start` prints once the server answers: where it runs and how long start-up took, the API's
// addresses, and the preview features that are on (no line when none is: V1 as published).
export function readyBanner(opts: {
  baseUrl: string;
  startupMs: number;
  buildMs: number;
  previews: readonly string[];
}): string[] {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const build = opts.buildMs ? ` (build ${seconds(opts.buildMs)})` : "";
  const lines = [
    "",
    `Ready: ${opts.baseUrl} — start-up took ${seconds(opts.startupMs)}${build}.`,
    `API: ${opts.baseUrl}/public/v1/products  ·  OpenAPI: ${opts.baseUrl}/public/v1/openapi.json`,
  ];
  if (opts.previews.length) {
    const named = opts.previews.map((name) => PREVIEW_FEATURE_TEXT[name] ?? name);
    lines.push(`Preview features on (not part of V1): ${named.join(", ")}.`);
  }
  return lines;
}
