// GET /public/v1/media: the public media of the key's organization, with absolute file and thumbnail URLs.
import { listMedia, mediaQuery } from "@/lib/catalog/resources/media";
import { EXAMPLES } from "../openapi/examples";
import { listOperation } from "./list";

export const listMediaOperation = listOperation({
  name: "media",
  path: "/public/v1/media",
  scope: "media:read",
  summary: "List media",
  description: "Returns the public media of the key's organization, with absolute file and thumbnail URLs.",
  query: mediaQuery,
  tag: { name: "Media", description: "Publicly exposed images, videos and documents." },
  item: "Media",
  example: EXAMPLES.media,
  handler: ({ catalog, org, query, config }) => listMedia(catalog, org, query, config.baseUrl),
});
