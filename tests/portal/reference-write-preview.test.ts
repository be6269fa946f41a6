// The reference and the write preview: off, no endpoint has a write operation; on, the products page gets
// POST /public/v1/products marked preview, read from the OpenAPI document like the rest, with code samples that parse.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ATTRIBUTE_TYPES } from "@/db/schema";
import { createProductBodySchema } from "@/lib/catalog/writes/create-product-schema";
import { resetConfig } from "@/lib/config";
import { getReferenceEndpoints, writeSamples, type RefEndpoint } from "@/lib/portal/reference";

// A V1 list of the reference with `details` on, as it is with it off: without the parameters of reads by ids, the
// 400's example of too many ids, and their names in the unknown parameter's example.
function withoutReadsByIds<E extends Pick<RefEndpoint, "params" | "errors">>(e: E): E {
  const copy = structuredClone(e);
  copy.params = copy.params.filter((p) => !p.preview);
  for (const error of copy.errors.filter((x) => x.status === "400")) {
    error.examples = error.examples.filter((x) => x.name !== "tooManyIds");
    for (const x of error.examples.filter((y) => y.name === "unknownParameter"))
      x.body.message = String(x.body.message).replace(/, ids(, identifiers)?\.$/, ".");
  }
  return copy;
}

function withPreview(on: boolean) {
  vi.stubEnv("PUBLIC_API_WRITE_PREVIEW", String(on));
  vi.stubEnv("PUBLIC_BASE_URL", "https://catalog.example.test");
  resetConfig();
}

afterEach(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

describe("the reference with the write preview", () => {
  it("off: no endpoint has a write operation", () => {
    withPreview(false);
    const endpoints = getReferenceEndpoints();
    expect(endpoints).toHaveLength(5);
    expect(endpoints.flatMap((e) => e.writes)).toEqual([]);
  });

  it("on: the products page has POST marked preview, its headers, body, value types, answers and errors", () => {
    withPreview(true);
    const endpoints = getReferenceEndpoints();
    // writes turns details on: its reads are listed too.
    expect(endpoints.map((e) => e.slug)).toEqual([
      "products",
      "families",
      "attributes",
      "categories",
      "media",
      "products-id",
      "families-id",
      "attributes-id",
      "channels",
    ]);
    expect(endpoints.filter((e) => e.writes.length > 0).map((e) => e.slug)).toEqual(["products"]);
    const w = endpoints[0]!.writes[0]!;
    expect(w).toMatchObject({
      method: "POST",
      path: "/public/v1/products",
      anchor: "create-product",
      summary: "Create a product (preview)",
      scope: "products:write",
      preview: true,
      bodySchemaName: "CreateProductRequest",
    });
    expect(w.description).toMatch(/^\*\*Preview\*\*/);
    expect(w.description).not.toMatch(/Required scope/);
    expect(w.headerParams.map((p) => p.name)).toEqual(["Idempotency-Key"]);
    expect(w.headerParams[0]).toMatchObject({ type: "string", minLength: 1, maxLength: 255 });
    expect(w.queryParams).toEqual([
      expect.objectContaining({ name: "dryRun", boolean: true, example: "true" }),
    ]);
    expect(w.bodyFields.map((f) => [f.name, f.type, f.required])).toEqual([
      ["familyId", "string", true],
      ["categoryId", "string", true],
      ["values", "object", true],
    ]);
    expect(w.valueTypes.map((v) => v.name)).toEqual([...ATTRIBUTE_TYPES, "Per channel"]);
    expect(w.valueTypes.find((v) => v.name === "MEDIA")!.type).toBe("string or array of string");
    expect(createProductBodySchema.safeParse(w.bodyExample).success).toBe(true);
    expect(w.responses.map((r) => [r.status, r.schemaName])).toEqual([
      ["200", "ProductDraft"],
      ["201", "CreatedProduct"],
    ]);
    expect(w.responses[1]!.headers).toEqual(expect.arrayContaining(["Location", "Idempotent-Replayed"]));
    expect(w.responses[1]!.fields.map((f) => f.name)).toEqual([
      "id",
      "familyId",
      "categoryId",
      "status",
      "createdAt",
    ]);
    expect(w.errors.map((e) => e.status)).toEqual([
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "415",
      "422",
      "429",
      "500",
      "503",
    ]);
    const codes = new Set(w.errors.flatMap((e) => e.examples.map((x) => x.body.code)));
    for (const code of [
      "PUBLIC_API_INVALID_BODY",
      "PUBLIC_API_FAMILY_NOT_FOUND",
      "PUBLIC_API_CONFLICT",
      "PUBLIC_API_IDEMPOTENCY_KEY_IN_USE",
      "PUBLIC_API_IDEMPOTENCY_KEY_REUSED",
      "PUBLIC_API_UNPROCESSABLE",
    ])
      expect(codes.has(code), code).toBe(true);
    // The V1 reads are the same pages as with the switch off (details adds its own after them), but for the
    // parameters of reads by ids (details, which writes turns on), marked preview, and the 400's examples naming them.
    const on = endpoints.slice(0, 5).map(({ writes: _w, ...e }) => withoutReadsByIds(e));
    withPreview(false);
    expect(getReferenceEndpoints().map(({ writes: _w, ...e }) => e)).toEqual(on);
  });

  it("on: the POST samples are well-formed shell, JavaScript and Python", () => {
    withPreview(true);
    const w = getReferenceEndpoints()[0]!.writes[0]!;
    const s = writeSamples({
      baseUrl: "https://catalog.example.test",
      path: w.path,
      body: w.bodyExample,
      key: "$PCA_API_KEY",
    });
    const dir = mkdtempSync(path.join(os.tmpdir(), "samples-"));
    const file = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    execFileSync("bash", ["-n", file("post.sh", s.curl)]);
    execFileSync(process.execPath, ["--check", file("post.mjs", s.javascript)]);
    execFileSync("python3", [
      "-c",
      "import ast,sys; ast.parse(open(sys.argv[1]).read())",
      file("post.py", s.python),
    ]);
    expect(s.curl).toContain("Idempotency-Key");
    expect(s.javascript).toContain('"Idempotency-Key": crypto.randomUUID()');
    expect(s.python).toContain('"Idempotency-Key": str(uuid.uuid4())');
  });
});
