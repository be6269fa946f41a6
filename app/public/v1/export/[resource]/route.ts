import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";

// /public/v1/export/[resource]: a whole resource as NDJSON from one snapshot (preview feature `export`: 404 while it
// is off, and for a name that is not a resource).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.route(
  "/public/v1/export/{resource}",
);
