// The lists (`GET /public/v1/<resource>`): one page as the API answers it, or every item of every page in order.
import type { Http } from "./http.js";
import type { ListAnswer, ListItem, ListQuery, ListResource } from "./types.js";

// The page size list() asks for when the query names none: the most the API gives.
const LIST_PER_PAGE = 100;

// A resource's list: every item (list) or one page (page).
export interface ResourceLists<R extends ListResource> {
  /** Every item of every page, in order, from `query.page` (default 1) to the last page. */
  list(query?: ListQuery<R>): AsyncIterableIterator<ListItem<R>>;
  /** One page: the list's JSON answer (`data` and `pagination`). */
  page(query?: ListQuery<R>, options?: { signal?: AbortSignal }): Promise<ListAnswer<R>>;
}

type PageFields = { page?: number; perPage?: number };

// The lists of one resource on a client's HTTP layer.
export class Lists<R extends ListResource> implements ResourceLists<R> {
  readonly #http: Http;
  readonly #resource: R;

  constructor(http: Http, resource: R) {
    this.#http = http;
    this.#resource = resource;
  }

  page(
    query: ListQuery<R> = {} as ListQuery<R>,
    options: { signal?: AbortSignal } = {},
  ): Promise<ListAnswer<R>> {
    const values = query as Record<string, string | number | undefined>;
    return this.#http.json<ListAnswer<R>>(`/public/v1/${this.#resource}`, {
      query: values,
      signal: options.signal,
    });
  }

  async *list(query: ListQuery<R> = {} as ListQuery<R>): AsyncGenerator<ListItem<R>, void, undefined> {
    const fields = query as PageFields;
    let page = fields.page ?? 1;
    const perPage = fields.perPage ?? LIST_PER_PAGE;
    for (;;) {
      const answer = await this.page({ ...query, page, perPage });
      yield* answer.data as ListItem<R>[];
      if (answer.data.length === 0 || page >= answer.pagination.totalPages) return;
      page++;
    }
  }
}
