// The lines `npm start` prints once the server answers, and the preview features they name (issue 21, row 23: with
// the write preview on, start-up said nothing about it).
import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { PREVIEW_FEATURE_TEXT } from "@/lib/preview";
import { readyBanner } from "@/scripts/lib/banner";

const base = { baseUrl: "http://localhost:3000", startupMs: 2345, buildMs: 0 };

describe("the preview features a configuration turns on (config.preview, what the banner names)", () => {
  it("names writes (and details, which writing needs) while PUBLIC_API_WRITE_PREVIEW (the alias) is on, nothing otherwise", () => {
    expect(loadConfig({ PUBLIC_API_WRITE_PREVIEW: "true" }).preview).toEqual(["writes", "details"]);
    expect(loadConfig({ PUBLIC_API_PREVIEW: "writes" }).preview).toEqual(["writes", "details"]);
    expect(loadConfig({ PUBLIC_API_WRITE_PREVIEW: "false" }).preview).toEqual([]);
    expect(loadConfig({}).preview).toEqual([]);
  });

  it("reads PUBLIC_API_PREVIEW: names in any order, case and spacing, `all`, `none`; the alias adds writes", () => {
    expect(loadConfig({ PUBLIC_API_PREVIEW: "details" }).preview).toEqual(["details"]);
    expect(loadConfig({ PUBLIC_API_PREVIEW: " Details , WRITES " }).preview).toEqual(["writes", "details"]);
    expect(loadConfig({ PUBLIC_API_PREVIEW: "all" }).preview).toEqual([
      "writes",
      "details",
      "changes",
      "export",
      "webhooks",
    ]);
    expect(loadConfig({ PUBLIC_API_PREVIEW: "none" }).preview).toEqual([]);
    expect(loadConfig({ PUBLIC_API_PREVIEW: "details", PUBLIC_API_WRITE_PREVIEW: "true" }).preview).toEqual([
      "writes",
      "details",
    ]);
  });

  it("refuses a name it does not know, naming the variable and the features there are", () => {
    expect(() => loadConfig({ PUBLIC_API_PREVIEW: "details,webhook" })).toThrow(
      'PUBLIC_API_PREVIEW="details,webhook": expected all, none or a comma-separated list of writes, details',
    );
  });
});

describe("readyBanner", () => {
  it("lists the preview features that are on, with what each adds", () => {
    const lines = readyBanner({ ...base, previews: ["writes"] });
    expect(lines).toContain(`Preview features on (not part of V1): ${PREVIEW_FEATURE_TEXT.writes}.`);
  });

  it("takes several names, each with what it adds", () => {
    const lines = readyBanner({ ...base, previews: ["writes", "details"] });
    expect(lines.at(-1)).toBe(
      `Preview features on (not part of V1): ${PREVIEW_FEATURE_TEXT.writes}, ${PREVIEW_FEATURE_TEXT.details}.`,
    );
    expect(PREVIEW_FEATURE_TEXT.details).toContain("GET /public/v1/products/{id}");
  });

  it("says nothing about previews when none is on (V1 as published)", () => {
    expect(readyBanner({ ...base, previews: [] })).toEqual([
      "",
      "Ready: http://localhost:3000 — start-up took 2.3 s.",
      "API: http://localhost:3000/public/v1/products  ·  OpenAPI: http://localhost:3000/public/v1/openapi.json",
    ]);
  });

  it("gives the build time when start-up built the app", () => {
    expect(readyBanner({ ...base, buildMs: 61_000, previews: [] })[1]).toBe(
      "Ready: http://localhost:3000 — start-up took 2.3 s (build 61.0 s).",
    );
  });
});
