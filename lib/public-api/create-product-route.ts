import { draftProduct, insertProduct, prepareProduct } from "@/lib/catalog/create-product";
import { boolParam, defineQuery } from "@/lib/catalog/list-query-grammar";
import type { CreatedProduct } from "@/lib/catalog/schemas";
import { WRITE_SCOPE } from "@/lib/keys/scopes";
import { getRuntime } from "@/lib/runtime";
import {
  claimIdempotencyKey,
  idempotencyKeyOf,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
  requestFingerprint,
} from "./idempotency";
import { ApiAnswer, withPublicApi } from "./pipeline";

// The query of a creation: only the dry-run switch.
export const createProductQuery = defineQuery({
  dryRun: boolParam("true: every check of the creation, nothing written; 200 with what would be created."),
});

const PATH = "/public/v1/products";

// POST /public/v1/products (write preview, scope products:write): the catalog validates and creates; the answer is
// a 201 with the product's Location (a path that V1 does not serve yet: GET /public/v1/products/{id} is planned).
// With an Idempotency-Key, the first answer is stored with the product and replayed to retries; a dry run checks the
// key's form like a creation but writes nothing (and so records nothing under its key).
export const createProductRoute = withPublicApi(
  async (ctx) => {
    const db = await getRuntime().db();
    // Read before the dry run's answer: a dry run performs every check of the creation, the header's included (a
    // malformed key is the same 400 with or without ?dryRun=true).
    const key = idempotencyKeyOf(ctx.request);
    if (ctx.query.dryRun) return new ApiAnswer(200, await draftProduct(db, ctx.org.id, ctx.body));
    const locationOf = (created: CreatedProduct) =>
      `${ctx.config.baseUrl}${PATH}/${encodeURIComponent(created.id)}`;
    if (key === undefined) {
      const created = await insertProduct(db, ctx.org.id, await prepareProduct(db, ctx.org.id, ctx.body));
      return new ApiAnswer(201, created, { Location: locationOf(created) });
    }
    const claim = await claimIdempotencyKey(db, ctx.key.id, key, requestFingerprint("POST", PATH, ctx.body));
    if (!claim.owner) {
      const { status, body, location } = claim.answer;
      return new ApiAnswer(status, JSON.parse(body), {
        ...(location ? { Location: location } : {}),
        "Idempotent-Replayed": "true",
      });
    }
    try {
      const prepared = await prepareProduct(db, ctx.org.id, ctx.body);
      const created = await insertProduct(db, ctx.org.id, prepared, (tx, answer) =>
        recordIdempotentAnswer(tx, ctx.key.id, key, claim.token, {
          status: 201,
          body: JSON.stringify(answer),
          location: locationOf(answer),
        }),
      );
      return new ApiAnswer(201, created, { Location: locationOf(created) });
    } catch (err) {
      // Refused or failed: nothing was written, so nothing is replayed; a retry runs the request again.
      await releaseIdempotencyKey(db, ctx.key.id, key, claim.token).catch(() => undefined);
      throw err;
    }
  },
  { scope: WRITE_SCOPE, query: createProductQuery, jsonBody: true },
);
