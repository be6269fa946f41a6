// The client's types, every one derived from the types generated from the served OpenAPI document (openapi.ts,
// written by `npm run clients:types`): an item, a query or an answer is never written by hand.
import type { components, operations } from "./openapi.js";

type Schemas = components["schemas"];

// The list operation of each resource that has a list.
interface ListOperations {
  products: "listProducts";
  families: "listFamilies";
  attributes: "listAttributes";
  categories: "listCategories";
  media: "listMedia";
  channels: "listChannels";
}

// A resource that has a list (`GET /public/v1/<resource>`).
export type ListResource = keyof ListOperations;

// The query parameters of a resource's list (page, perPage, q, sort, updatedSince, its filters).
export type ListQuery<R extends ListResource> = NonNullable<
  operations[ListOperations[R]]["parameters"]["query"]
>;

// A list's JSON answer: one page of items and the pagination of the whole list.
export type ListAnswer<R extends ListResource> =
  operations[ListOperations[R]]["responses"][200]["content"]["application/json"];

// One item of a resource's list.
export type ListItem<R extends ListResource> = ListAnswer<R>["data"][number];

// The pagination object of every list's answer.
export type Pagination = Schemas["Pagination"];

// A product read whole (`GET /public/v1/products/{id}`).
export type ProductDetail = Schemas["ProductDetail"];
// A family read whole (`GET /public/v1/families/{id}`).
export type FamilyDetail = Schemas["FamilyDetail"];
// An attribute read whole (`GET /public/v1/attributes/{id}`).
export type AttributeDetail = Schemas["AttributeDetail"];
// A channel as its list shows it.
export type Channel = Schemas["Channel"];

// A resource the export streams (`GET /public/v1/export/{resource}`).
export type ExportResource = operations["exportResource"]["parameters"]["path"]["resource"];

// The export's end line: the feed's cursor of the snapshot and the number of items.
export type ExportEnd = Schemas["ExportEnd"];

// One line of an export that is not its end: the item in the shape its own endpoint answers.
export type Item = Exclude<
  operations["exportResource"]["responses"][200]["content"]["application/x-ndjson"],
  ExportEnd
>;

// One event of the change feed (and the body of a webhook delivery).
export type ChangeEvent = Schemas["ChangeEvent"];

// A webhook delivery's payload: the feed's event, exactly as `GET /public/v1/changes` gives it.
export type WebhookEvent = operations["receiveCatalogChange"]["requestBody"]["content"]["application/json"];

// A resource the change feed carries events of.
export type ChangeType = ChangeEvent["type"];

// The change feed's query: `after` the cursor to continue from, `types` the resources, `limit`, `wait` seconds.
export type ChangesQuery = Omit<
  NonNullable<operations["listChanges"]["parameters"]["query"]>,
  "after" | "types"
> & {
  after: string;
  types?: readonly string[];
};

// One page of the change feed: the events, the cursor to continue from, whether more are there already.
export type ChangesPage = operations["listChanges"]["responses"][200]["content"]["application/json"];

// An error body of the API (the shape of every non-2xx answer).
export type ApiErrorBody = Schemas["ApiError"] | Schemas["WriteError"];

// A code of the error catalogue.
export type ErrorCode = ApiErrorBody["code"];
