// The OpenAPI document, byte for byte, for each preview combination: its length and SHA-256 are held in
// openapi-same.json (the documents themselves are 70 to 180 KB each). A change to the document is a change of the
// contract: regenerate the fixture on purpose with OPENAPI_SAME_WRITE=1 and review the document's diff.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { PREVIEW_FEATURES, withNeeds, type PreviewFeature } from "@/lib/preview";

const FIXTURE = new URL("./openapi-same.json", import.meta.url);

// None, each feature alone, each with what it needs (as the configuration switches it on), and all of them.
const COMBINATIONS: Record<string, readonly PreviewFeature[]> = {
  none: [],
  ...Object.fromEntries(PREVIEW_FEATURES.map((f) => [f, [f]])),
  ...Object.fromEntries(
    PREVIEW_FEATURES.filter((f) => withNeeds([f]).length > 1).map((f) => [
      withNeeds([f]).join("+"),
      withNeeds([f]),
    ]),
  ),
  all: PREVIEW_FEATURES,
};

// The document's JSON string's length and SHA-256.
function fingerprint(preview: readonly PreviewFeature[]): string {
  const json = JSON.stringify(buildOpenApiDocument("http://api.test", { preview }));
  return `${json.length} ${createHash("sha256").update(json).digest("hex")}`;
}

describe("the OpenAPI document, byte for byte", () => {
  const now = Object.fromEntries(Object.entries(COMBINATIONS).map(([name, p]) => [name, fingerprint(p)]));
  if (process.env.OPENAPI_SAME_WRITE === "1") writeFileSync(FIXTURE, `${JSON.stringify(now, null, 2)}\n`);
  const recorded = JSON.parse(readFileSync(FIXTURE, "utf8")) as Record<string, string>;

  it.each(Object.keys(COMBINATIONS))("preview %s", (name) => {
    expect(now[name]).toBe(recorded[name]);
  });
});
