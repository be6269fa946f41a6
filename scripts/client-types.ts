// `npm run clients:types`: writes the TypeScript client's types (clients/typescript/src/openapi.ts) from the OpenAPI
// document exactly as the server serves it with every preview feature on, so the client never writes a type twice.
// tests/clients/client-types.test.ts regenerates them in memory and fails when the committed file differs.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from "openapi-typescript";
import { PREVIEW_FEATURES, type PreviewFeature } from "../lib/preview";
import { buildOpenApiDocument } from "../lib/public-api/openapi/document";

// Where the types go, from the repository's root.
export const CLIENT_TYPES_FILE = "clients/typescript/src/openapi.ts";

// The base URL the document is built with: it only shows in descriptions and `servers`, none of which is a type.
const BASE_URL = "http://localhost:3000";

// The served document's JSON (as GET /public/v1/openapi.json answers it) for these preview features.
export function servedDocument(preview: readonly PreviewFeature[] = PREVIEW_FEATURES): OpenAPI3 {
  return JSON.parse(JSON.stringify(buildOpenApiDocument(BASE_URL, { preview }))) as OpenAPI3;
}

// The generated file's text: openapi-typescript's types of the document with every preview feature on.
export async function clientTypes(preview: readonly PreviewFeature[] = PREVIEW_FEATURES): Promise<string> {
  const ast = await openapiTS(servedDocument(preview), { silent: true });
  return COMMENT_HEADER + astToString(ast);
}

async function main(): Promise<void> {
  const file = path.resolve(import.meta.dirname, "..", CLIENT_TYPES_FILE);
  writeFileSync(file, await clientTypes());
  process.stdout.write(`wrote ${CLIENT_TYPES_FILE}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
