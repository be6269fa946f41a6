// The lines `npm start` prints once the server answers, and the preview features they name (issue 21, row 23: with
// the write preview on, start-up said nothing about it).
import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { previewFeatures, readyBanner } from "@/scripts/lib/banner";

const base = { baseUrl: "http://localhost:3000", startupMs: 2345, buildMs: 0 };

describe("previewFeatures", () => {
  it("names writes while PUBLIC_API_WRITE_PREVIEW is on, nothing otherwise", () => {
    expect(previewFeatures(loadConfig({ PUBLIC_API_WRITE_PREVIEW: "true" }))).toEqual(["writes"]);
    expect(previewFeatures(loadConfig({ PUBLIC_API_WRITE_PREVIEW: "false" }))).toEqual([]);
    expect(previewFeatures(loadConfig({}))).toEqual([]);
  });
});

describe("readyBanner", () => {
  it("lists the preview features that are on, with what each adds", () => {
    const lines = readyBanner({ ...base, previews: ["writes"] });
    expect(lines).toContain(
      "Preview features on (not part of V1): writes (POST /public/v1/products, scope products:write).",
    );
  });

  it("takes a list of names: several, and one it has no description for, printed as named", () => {
    const lines = readyBanner({ ...base, previews: ["writes", "details"] });
    expect(lines.at(-1)).toBe(
      "Preview features on (not part of V1): writes (POST /public/v1/products, scope products:write), details.",
    );
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
