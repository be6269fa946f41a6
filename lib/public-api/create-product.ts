import { createProduct } from "@/lib/catalog/create-product";
import { defineQuery } from "@/lib/catalog/query";
import { WRITE_SCOPE } from "@/lib/keys/scopes";
import { getRuntime } from "@/lib/runtime";
import { ApiAnswer, withPublicApi } from "./with-public-api";

// POST /public/v1/products (write preview, scope products:write): the catalog creates, the answer is a 201 with the
// product's Location (a path that V1 does not serve yet: GET /public/v1/products/{id} is planned).
export const createProductRoute = withPublicApi(
  async (ctx) => {
    const created = await createProduct(await getRuntime().db(), ctx.org.id, ctx.body);
    return new ApiAnswer(201, created, {
      Location: `${ctx.config.baseUrl}/public/v1/products/${encodeURIComponent(created.id)}`,
    });
  },
  { scope: WRITE_SCOPE, query: defineQuery({}), jsonBody: true },
);
