// The portal's Content-Security-Policy: same origin only, scripts and styles by per-request nonce.
export function contentSecurityPolicy(nonce: string, opts: { dev: boolean; https: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "manifest-src 'self'",
    "worker-src 'self'",
    ...(opts.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

// A fresh random nonce (base64 of 16 random bytes).
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

// The security headers of every portal answer besides its CSP: never sniffed, never framed, the referrer trimmed
// to the origin across sites. The proxy sets them with the per-request CSP; next.config sets them (and
// BASELINE_CSP) on every answer outside /public/, so that what the proxy does not see carries them too.
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Frame-Options": "DENY",
};

// The CSP of an answer the proxy does not see (static files, feeds, media): what needs no nonce. Compatible with
// contentSecurityPolicy() if a browser ever gets both (each directive here is also there, as strict).
export const BASELINE_CSP = "frame-ancestors 'none'; object-src 'none'; base-uri 'self'";

// The security headers of an answer outside the API that no page renders: the baseline CSP and SECURITY_HEADERS.
// next.config.ts sets them on Next.js' answers; the production server's own answers (lib/server/front-door.ts: its
// refusals, a request node's parser refused, a 500 of serve.mjs) bypass next.config.ts and take them from here.
export const BASELINE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": BASELINE_CSP,
  ...SECURITY_HEADERS,
};
