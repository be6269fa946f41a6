// The TypeScript client's generated types (clients/typescript/src/openapi.ts) are those of the document the server
// serves now: regenerated in memory and compared with the committed file, so they can never go stale (after a
// change of the document, run `npm run clients:types` and commit the file). V1's document (every preview feature
// off) is a part of the one they are generated from: a client built on them reads a V1 server too.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES_FILE, clientTypes, servedDocument } from "@/scripts/client-types";

const root = path.resolve(import.meta.dirname, "../..");

describe("the TypeScript client's generated types", () => {
  it("are the committed file, byte for byte (else run npm run clients:types)", async () => {
    const committed = readFileSync(path.join(root, CLIENT_TYPES_FILE), "utf8");
    expect(await clientTypes()).toBe(committed);
  });

  it("cover V1's document: its paths, operations and schemas are all in the full one", async () => {
    const v1 = servedDocument([]);
    const full = servedDocument();
    for (const [p, item] of Object.entries(v1.paths ?? {}))
      for (const method of Object.keys(item))
        expect(full.paths?.[p], `${method} ${p}`).toHaveProperty(method);
    const fullSchemas = Object.keys(full.components?.schemas ?? {});
    expect(fullSchemas).toEqual(expect.arrayContaining(Object.keys(v1.components?.schemas ?? {})));
    const v1Types = await clientTypes([]);
    for (const name of Object.keys(v1.components?.schemas ?? {}))
      expect(v1Types).toContain(`        ${name}: `);
  });
});
