// One answer of the API as the try-it shows it.
export interface Answer {
  status: number;
  statusText: string;
  ms: number;
  /** The SHOWN_HEADERS the answer carries, in that order. */
  headers: [string, string][];
  /** Pretty-printed when JSON, as received otherwise. */
  body: string;
  /** Path and query string, as sent. */
  url: string;
  query: [string, string][];
}

// The answer headers worth showing: rate limit, request id, authentication challenge and media type.
const SHOWN_HEADERS = [
  "ratelimit-policy",
  "ratelimit",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after",
  "x-request-id",
  "www-authenticate",
  "content-type",
];

// Sends GET path?query to this origin (no cookies, no cache), the key as a Bearer token when there is one.
export async function fetchAnswer(path: string, query: [string, string][], key: string): Promise<Answer> {
  const qs = new URLSearchParams(query).toString();
  const url = `${path}${qs ? `?${qs}` : ""}`;
  const t0 = performance.now();
  const res = await fetch(url, {
    headers: { Accept: "application/json", ...(key ? { Authorization: `Bearer ${key}` } : {}) },
    cache: "no-store",
    credentials: "omit",
  });
  const text = await res.text();
  const ms = Math.round(performance.now() - t0);
  let body = text;
  try {
    body = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON: shown as is
  }
  const headers = SHOWN_HEADERS.flatMap((h) => {
    const v = res.headers.get(h);
    return v === null ? [] : [[h, v] as [string, string]];
  });
  return { status: res.status, statusText: res.statusText, ms, headers, body, url, query };
}
