// The OpenAPI document with the preview feature `webhooks` on: a top-level `webhooks` (OpenAPI 3.1) whose request
// body is the feed's ChangeEvent component (the same zod schema as GET /public/v1/changes), marked x-preview, with
// the Standard Webhooks headers; a real delivery's headers and body match what it says. Off: nothing of it, and V1's
// document unchanged to the byte. Lint-clean.
import { describe, expect, it } from "vitest";
import { changeEventSchema } from "@/lib/catalog/resources/schemas";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { changeEventComponent } from "@/lib/public-api/openapi/components";
import { PREVIEW_FEATURES } from "@/lib/preview";
import { newWebhookSecret, signWebhook } from "@/lib/webhooks/signing";
import { redoclyLint } from "../support/redocly";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const on = buildOpenApiDocument("http://api.test", { preview: ["webhooks"] }) as Json;
const off = buildOpenApiDocument("http://api.test") as Json;

describe("the OpenAPI document of the preview feature `webhooks`", () => {
  it("lists the catalog's change as a webhook, marked x-preview, its body the ChangeEvent component", () => {
    expect(Object.keys(on.webhooks)).toEqual(["catalogChange"]);
    const op = on.webhooks.catalogChange.post;
    expect(Object.keys(on.webhooks.catalogChange)).toEqual(["post"]);
    expect(op["x-preview"]).toBe(true);
    expect(op.tags).toEqual(["Webhooks"]);
    expect(op.security).toEqual([]);
    expect(op.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ChangeEvent",
    });
    // The one component, the feed's own (with its items by reference), there even without `changes`.
    expect(on.components.schemas.ChangeEvent).toEqual(changeEventComponent());
    for (const name of ["ProductDetail", "FamilyDetail", "AttributeDetail", "Category", "Media", "Channel"])
      expect(on.components.schemas[name], name).toBeDefined();
    expect(() => changeEventSchema.parse(op.requestBody.content["application/json"].example)).not.toThrow();
    expect(on.tags.map((t: Json) => t.name)).toContain("Webhooks");
  });

  it("documents the Standard Webhooks headers, which a real signature matches", () => {
    const params = Object.fromEntries(
      on.webhooks.catalogChange.post.parameters.map((p: Json) => [p.name, p]),
    );
    expect(Object.keys(params)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    for (const p of Object.values(params) as Json[])
      expect(p).toMatchObject({ in: "header", required: true });
    const ts = Math.floor(Date.now() / 1000);
    const sig = signWebhook([newWebhookSecret(), newWebhookSecret()], "1233", ts, "{}");
    expect(sig).toMatch(new RegExp(params["webhook-signature"].schema.pattern));
    expect("1233").toMatch(new RegExp(params["webhook-id"].schema.pattern));
    expect(String(ts)).toMatch(new RegExp(params["webhook-timestamp"].schema.pattern));
    expect(params["webhook-signature"].example).toMatch(
      new RegExp(params["webhook-signature"].schema.pattern),
    );
  });

  it("adds nothing while the feature is off: V1's document and every other feature's stay as they were", () => {
    expect(off.webhooks).toBeUndefined();
    expect(JSON.stringify(off)).not.toMatch(/webhook/i);
    const others = PREVIEW_FEATURES.filter((f) => f !== "webhooks");
    const withOthers = buildOpenApiDocument("http://api.test", { preview: others }) as Json;
    expect(withOthers.webhooks).toBeUndefined();
    // With webhooks on too, the rest is the same: only `webhooks` and its tag are added.
    const all = buildOpenApiDocument("http://api.test", { preview: [...PREVIEW_FEATURES] }) as Json;
    const { webhooks: _w, tags, ...rest } = all;
    const { tags: otherTags, ...otherRest } = withOthers;
    expect(rest).toEqual(otherRest);
    expect(tags.filter((t: Json) => t.name !== "Webhooks")).toEqual(otherTags);
  });

  it("passes @redocly/cli lint with no error, alone and with every feature", () => {
    for (const preview of [["webhooks"] as const, PREVIEW_FEATURES]) {
      const { failed, output } = redoclyLint(buildOpenApiDocument("http://api.test", { preview }));
      expect(failed, output).toBe(false);
    }
  }, 120_000);
});
