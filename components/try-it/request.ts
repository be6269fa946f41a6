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
  /** The path alone, as sent (path parameters filled). */
  path: string;
  query: [string, string][];
  /** The If-None-Match header sent, if any. */
  ifNoneMatch?: string;
  /** The answer's ETag (a list's 200 or 304), to send back in If-None-Match. */
  etag: string | null;
}

// The answer headers worth showing: validators (a list's ETag, its caching and what it varies with), rate limit,
// request id, authentication challenge and media type.
const SHOWN_HEADERS = [
  "etag",
  "cache-control",
  "vary",
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

// Sends GET path?query to this origin (no cookies), the key as a Bearer token when there is one and If-None-Match
// when given. `no-store` keeps the browser's HTTP cache out of the way: it would otherwise answer a 304 itself and
// show the page a 200, so the page sees the server's real status.
export async function fetchAnswer(
  path: string,
  query: [string, string][],
  key: string,
  ifNoneMatch = "",
): Promise<Answer> {
  const qs = new URLSearchParams(query).toString();
  const url = `${path}${qs ? `?${qs}` : ""}`;
  const sentTag = ifNoneMatch.trim();
  const t0 = performance.now();
  const res = await fetch(url, {
    headers: {
      Accept: "application/json",
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
      ...(sentTag ? { "If-None-Match": sentTag } : {}),
    },
    cache: "no-store",
    credentials: "omit",
  });
  const text = await res.text();
  const ms = Math.round(performance.now() - t0);
  let body = text;
  if (text !== "") {
    try {
      body = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // not JSON: shown as is
    }
  }
  const headers = SHOWN_HEADERS.flatMap((h) => {
    const v = res.headers.get(h);
    return v === null ? [] : [[h, v] as [string, string]];
  });
  return {
    status: res.status,
    statusText: res.statusText,
    ms,
    headers,
    body,
    url,
    path,
    query,
    ifNoneMatch: sentTag || undefined,
    etag: res.headers.get("etag"),
  };
}
