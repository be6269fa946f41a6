// The client of the Public Catalog API: the lists, the detail reads, the channels, the export and the change feed,
// on the HTTP layer that sends the key and retries 429, 503 and network errors.
import { changesPage, followPages, type FollowOptions } from "./changes.js";
import { exportLines, type ExportLine, type ExportOptions } from "./export.js";
import { Http, type ClientOptions } from "./http.js";
import { Lists } from "./lists.js";
import type {
  AttributeDetail,
  Channel,
  ChangesPage,
  ChangesQuery,
  ExportResource,
  FamilyDetail,
  ProductDetail,
} from "./types.js";

// An abort signal for one call.
export interface CallOptions {
  signal?: AbortSignal;
}

// A resource's lists and its detail read (`GET /public/v1/<resource>/{id}`).
export class DetailLists<R extends "products" | "families" | "attributes", D> extends Lists<R> {
  readonly #http: Http;
  readonly #resource: R;

  constructor(http: Http, resource: R) {
    super(http, resource);
    this.#http = http;
    this.#resource = resource;
  }

  // One object whole; an id not in the key's organization throws CatalogApiError 404 PUBLIC_API_NOT_FOUND.
  get(id: string, options: CallOptions = {}): Promise<D> {
    return this.#http.json<D>(`/public/v1/${this.#resource}/${encodeURIComponent(id)}`, options);
  }
}

// A client for one key on one server.
export class CatalogClient {
  readonly #http: Http;
  readonly products: DetailLists<"products", ProductDetail>;
  readonly families: DetailLists<"families", FamilyDetail>;
  readonly attributes: DetailLists<"attributes", AttributeDetail>;
  readonly categories: Lists<"categories">;
  readonly media: Lists<"media">;

  constructor(options: ClientOptions) {
    this.#http = new Http(options);
    this.products = new DetailLists(this.#http, "products");
    this.families = new DetailLists(this.#http, "families");
    this.attributes = new DetailLists(this.#http, "attributes");
    this.categories = new Lists(this.#http, "categories");
    this.media = new Lists(this.#http, "media");
  }

  // Every channel of the organization (`GET /public/v1/channels`, every page).
  async channels(): Promise<Channel[]> {
    const all: Channel[] = [];
    for await (const channel of new Lists(this.#http, "channels").list()) all.push(channel);
    return all;
  }

  // Every item of a resource from one snapshot, then `{ end, cursor, count }`: the cursor to follow the feed from.
  export(resource: ExportResource, options: ExportOptions = {}): AsyncIterableIterator<ExportLine> {
    return exportLines(this.#http, resource, options);
  }

  // One page of the change feed after `query.after`.
  changes(query: ChangesQuery, options: CallOptions = {}): Promise<ChangesPage> {
    return changesPage(this.#http, query, options.signal);
  }

  // The feed's pages from `options.after`, for ever (long polling), until `options.signal` aborts.
  follow(options: FollowOptions): AsyncIterableIterator<ChangesPage> {
    return followPages(this.#http, options);
  }
}
