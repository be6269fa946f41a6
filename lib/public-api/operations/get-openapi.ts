// GET /public/v1/openapi.json: the OpenAPI 3.1 document, public (no key), for the portal and code generators; with a
// preview feature on, it includes that feature's operations, marked preview. Built once per (preview features, base
// URL) of the runtime's configuration and kept in the API's state; answered from memory, never admitted.
import { randomUUID } from "node:crypto";
import { baseHeaders } from "../headers";
import { defineOperation } from "../operation";

export const getOpenApiOperation = defineOperation({
  method: "GET",
  path: "/public/v1/openapi.json",
  free: true,
  handler: async ({ request, config, state, document }) => {
    const { baseUrl, preview } = config;
    const key = `${preview.join(",")} ${baseUrl}`;
    let json = state.openApiDocuments.get(key);
    if (json === undefined) {
      json = JSON.stringify(document(baseUrl, { preview }));
      state.openApiDocuments.set(key, json);
    }
    return {
      status: 200,
      headers: baseHeaders(randomUUID(), "public, max-age=300"),
      body: request.method === "HEAD" ? null : json,
    };
  },
});
