// The preview feature `webhooks` in the OpenAPI document: its top-level `webhooks` (OpenAPI 3.1), the request this
// server sends to an integrator's endpoint, marked `x-preview`: the change feed's event as body (the ChangeEvent
// component, from the same zod schema as GET /public/v1/changes: not described twice) and the Standard Webhooks
// headers. Present only while the feature is on.
import { scheduleSummary } from "@/lib/webhooks/schedule";
import { CHANGES_EXAMPLE } from "./examples";
import type { Json } from "./json-schema";

// The name of the one webhook in the document's `webhooks` map (generators name their handler type after it).
export const WEBHOOK_NAME = "catalogChange";

const PREVIEW_NOTE =
  "**Preview** (feature `webhooks`): available only while the operator switches it on (`PUBLIC_API_PREVIEW=webhooks`); it may still change.";

// The headers every delivery carries (Standard Webhooks), as header parameters of the webhook's request.
const HEADERS: Json[] = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description:
      "The event's `cursor`: unique per event of the organization, the same on every attempt and redelivery of it. Deduplicate by it (deliveries come at least once).",
    schema: { type: "string", pattern: "^[0-9]{1,15}$" },
    example: "1233",
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description:
      "When this attempt was signed, in whole seconds since 1970 (UTC). Refuse one more than five minutes from your clock.",
    schema: { type: "string", pattern: "^[0-9]+$" },
    example: "1780824612",
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed by the bytes of the endpoint's secret (the base64 after `whsec_`); while a secret is rolled, one signature per secret, separated by a space. Verify on the raw body, in constant time.",
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" },
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  },
];

// The document's `webhooks`: one POST per event of the change feed, to each endpoint registered in the console.
export function webhooksSection(): Json {
  return {
    [WEBHOOK_NAME]: {
      post: {
        operationId: "receiveCatalogChange",
        summary: "A change of the catalog, pushed to your endpoint (preview)",
        description:
          `Each event of the change feed (\`GET /public/v1/changes\`), POSTed as it is committed to every endpoint of the organization that subscribes to its resource and operation, signed as the Standard Webhooks specification says. Answer 2xx within 15 seconds; anything else is retried: ${scheduleSummary()}; then the endpoint is switched off. Events of one object come in cursor order. See the guide at \`/docs/webhooks\`.\n\n` +
          PREVIEW_NOTE,
        tags: ["Webhooks"],
        "x-preview": true,
        // Not the API's bearer key: a delivery is authenticated by its signature.
        security: [],
        parameters: HEADERS,
        requestBody: {
          required: true,
          description: "The feed's event, exactly as `GET /public/v1/changes` gives it in `data`.",
          content: {
            "application/json": {
              schema: { $ref: "#/components/schemas/ChangeEvent" },
              example: CHANGES_EXAMPLE.data[0],
            },
          },
        },
        responses: {
          "2XX": {
            description:
              "Received: the delivery is done (only the first bytes of the body are read, for the console).",
          },
          default: {
            description:
              "Any other status, a redirect (never followed), or no answer within 15 seconds: the delivery is retried.",
          },
        },
      },
    },
  };
}
