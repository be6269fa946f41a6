import type { ListResult, Pagination } from "./engine";

// A list's page whose items come serialized from where they are held (the products' index in memory keeps each
// item's JSON until the product changes): the answer's bytes are its items' joined, the same bytes as the page's
// JSON.stringify, built without an object per item. `data` parses them back, for a reader that wants the items.
// Measured: bench/README.md#products-in-memory
export class RenderedList<T> implements ListResult<T> {
  readonly pagination: Pagination;
  declare readonly data: T[];
  readonly #items: readonly Uint8Array[];

  constructor(items: readonly Uint8Array[], pagination: Pagination) {
    this.#items = items;
    this.pagination = pagination;
    let data: T[] | undefined;
    // Enumerable, as a plain list's: a comparison or a spread sees the items.
    Object.defineProperty(this, "data", {
      enumerable: true,
      get: () =>
        (data ??= items.map(
          (b) => JSON.parse(Buffer.from(b.buffer, b.byteOffset, b.length).toString()) as T,
        )),
    });
  }

  /** The page's JSON as UTF-8: `{"data":[…],"pagination":{…}}`, as JSON.stringify writes a plain list. */
  jsonBytes(): Buffer<ArrayBuffer> {
    const parts: Uint8Array[] = [OPEN];
    for (let i = 0; i < this.#items.length; i++) {
      if (i > 0) parts.push(COMMA);
      parts.push(this.#items[i]!);
    }
    parts.push(Buffer.from(`],"pagination":${JSON.stringify(this.pagination)}}`));
    return Buffer.concat(parts);
  }

  toJSON(): ListResult<T> {
    return { data: this.data, pagination: this.pagination };
  }
}

const OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(",");

// The UTF-8 JSON of an answer's body: a rendered list's bytes, else JSON.stringify's.
export function jsonBytes(body: unknown): Buffer<ArrayBuffer> {
  return body instanceof RenderedList ? body.jsonBytes() : Buffer.from(JSON.stringify(body));
}
