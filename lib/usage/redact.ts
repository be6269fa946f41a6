// What the request log keeps of a request's target: the path and query as sent, with the value of every
// secret-looking parameter replaced, and bounded in length.

// Parameter names whose value is never kept (compared without case, anywhere in the name: `api_key`, `accessToken`,
// `X-Amz-Signature`, `code` of an OAuth redirect, `password`).
export const SECRET_PARAM = /key|token|secret|password|passwd|signature|auth|code|session|credential/i;

// What replaces a removed value.
export const REMOVED = "[removed]";

// Longest path and query kept, in characters (the rest is cut and marked with "…").
export const MAX_LOGGED_TARGET = 500;

// The path and query of a URL with secret-looking parameter values replaced by "[removed]"; the other parameters,
// their order and their encoding are kept as sent. A name that does not decode is compared as sent.
export function redactTarget(url: URL): string {
  const raw = url.search.length > 1 ? url.search.slice(1) : "";
  let target = url.pathname;
  if (raw) {
    const parts = raw.split("&").map((part) => {
      const eq = part.indexOf("=");
      const rawName = eq < 0 ? part : part.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, " "));
      } catch {
        // kept as sent
      }
      return SECRET_PARAM.test(name) && eq >= 0 ? `${rawName}=${REMOVED}` : part;
    });
    target += `?${parts.join("&")}`;
  }
  return target.length > MAX_LOGGED_TARGET ? `${target.slice(0, MAX_LOGGED_TARGET - 1)}…` : target;
}
