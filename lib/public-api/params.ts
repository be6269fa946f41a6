import { BoundedMap } from "@/lib/bounded-map";
import { paramsOn, type ParamDef, type QueryDef, type Refusal } from "@/lib/catalog/list/query-grammar";
import type { PreviewFeature } from "@/lib/preview";
import { PublicApiError } from "./api-errors";
import type { ApiRequest } from "./api-request";
import { canonicalJson } from "./page-cache";
import {
  acceptsText,
  invalidParamText,
  refusalText,
  repeatedParamText,
  unknownParamText,
} from "./query-messages";

// The request header in which npm start's server (scripts/serve.mjs) hands the API the query string as the client
// sent it: Next.js rebuilds request.url's query from a parsed object, which silently loses a `__proto__` parameter
// (and any named like its own `nxtP…` ones), so that a typo-checking parser would never see it. The server sets it on
// every request under /public/ and drops a client's; under next dev or next start, a client could send its own,
// which only restates its own query.
export const SENT_QUERY_HEADER = "x-public-api-sent-query";

// The query string of a request as the client sent it (no `?`): SENT_QUERY_HEADER when present, else the URL's.
export function sentQuery(request: ApiRequest, url: URL): string {
  return request.headers.get(SENT_QUERY_HEADER) ?? url.search.slice(1);
}

// A query parsed and validated (parseQuery), with its canonical JSON (canonicalJson: what the page cache keys an
// answer by and its tag is hashed with).
export interface ParsedQuery<T> {
  readonly query: T;
  readonly canonical: string;
}

// Queries parsed, per definition, by the query string as sent, so that a URL asked again (a poll, a search, a page
// walked again) is not validated again, under the preview features switched on (the runtime's, fixed for its life,
// as this cache is: the API's state). Each definition keeps at most `maxPerDefinition` queries, the least recently asked going
// first; a query refused is not kept (its 400 is built again). A parsed query is shared by every request that sent
// that string: it is frozen, arrays included, so that no handler can change another's.
export class ParsedQueries {
  private readonly byDefinition = new WeakMap<QueryDef<unknown>, BoundedMap<string, ParsedQuery<unknown>>>();

  constructor(
    readonly maxPerDefinition: number,
    private readonly preview: readonly PreviewFeature[] = [],
  ) {}

  parse<T>(sent: string, def: QueryDef<T>): ParsedQuery<T> {
    let kept = this.byDefinition.get(def);
    if (!kept) {
      kept = new BoundedMap(this.maxPerDefinition);
      this.byDefinition.set(def, kept);
    }
    const hit = kept.touch(sent);
    if (hit) return hit as ParsedQuery<T>;
    const query = parseQuery(new URLSearchParams(sent), def, this.preview);
    for (const v of Object.values(query as object)) if (Array.isArray(v)) Object.freeze(v);
    const parsed: ParsedQuery<T> = { query: Object.freeze(query), canonical: canonicalJson(query) };
    if (this.maxPerDefinition > 0) kept.set(sent, parsed);
    return parsed;
  }
}

// The parameters of a QueryDef in force with these preview features, by name: built once per definition and
// configuration (the features' list is the runtime's, one array), not per request.
const inForce = new WeakMap<
  QueryDef<unknown>,
  { preview: readonly PreviewFeature[]; params: Map<string, ParamDef> }
>();
function paramsInForce(def: QueryDef<unknown>, preview: readonly PreviewFeature[]): Map<string, ParamDef> {
  const kept = inForce.get(def);
  if (kept && kept.preview === preview) return kept.params;
  const params = new Map(paramsOn(def, preview));
  inForce.set(def, { preview, params });
  return params;
}

// Parses and validates URL query parameters against a QueryDef, or throws a 400 naming the parameter. A parameter of
// a preview feature that is not in `preview` (the features switched on) is unknown, as any name the query lacks.
export function parseQuery<T>(
  searchParams: URLSearchParams,
  def: QueryDef<T>,
  preview: readonly PreviewFeature[] = [],
): T {
  const on = paramsInForce(def, preview);
  // Own properties only, on an object without a prototype: "constructor", "toString" or "__proto__" are unknown
  // parameters like any other name, never inherited members of Object.prototype.
  const raw: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of searchParams) {
    const param = on.get(name);
    if (!param) {
      throw new PublicApiError("PUBLIC_API_INVALID_QUERY", unknownParamText(name, [...on.keys()]));
    }
    if (param.array) {
      const list = (raw[name] as string[] | undefined) ?? [];
      for (const v of value.split(",")) {
        const item = v.trim();
        if (item) list.push(item);
      }
      raw[name] = list;
    } else if (name in raw) {
      throw new PublicApiError("PUBLIC_API_INVALID_QUERY", repeatedParamText(name));
    } else {
      raw[name] = value;
    }
  }
  const parsed = def.schema.safeParse({ ...raw });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0] ?? "");
  const param = def.params[name];
  // A refusal the grammar raised says why; any other issue, what the parameter accepts.
  const refusal = issue.code === "custom" ? (issue.params as Refusal | undefined) : undefined;
  const detail = refusal ? refusalText(refusal) : param ? acceptsText(param.accepts) : issue.message;
  const got = raw[name];
  const shown = Array.isArray(got) ? got.join(",") : got;
  throw new PublicApiError("PUBLIC_API_INVALID_QUERY", invalidParamText(name, detail, shown));
}
