// The portal while its database is unreachable: which pages need the database, whether it answers (a cheap cached
// probe), and the 503 page the proxy sends instead of rendering them. App Router pages cannot choose their status
// (an error thrown while rendering is a 500), so the proxy decides before Next.js renders.
// No `server-only` and no next/* here: proxy.ts and the tests import it as plain code.
import { UNAVAILABLE_RETRY_AFTER } from "@/lib/public-api/error-response";
import { getRuntime } from "@/lib/runtime";
import { portalState } from "./state";

// Portal pages rendered from the database. The docs, the reference and search are built from the OpenAPI document
// and the guides in code: they stay up while the database is down.
export const DATABASE_PAGES: readonly string[] = ["/changelog"];

// True when the page at this path reads the database.
export function needsDatabase(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  return DATABASE_PAGES.includes(path);
}

// How long an answer of the probe is trusted. "Up" briefly: pages rendered in the second after the database went
// down are 500s (with app/changelog/error.tsx), the requests after it 503s. "Down" a little longer: during an
// outage, requests are answered at once while one probe at a time checks again in the background.
export const UP_FRESH_MS = 1_000;
export const DOWN_FRESH_MS = 2_000;
// A probe that has not answered by then counts as down (the driver's own connect and statement bounds come first).
export const PROBE_TIMEOUT_MS = 5_000;

// What is known is the portal's `databaseHealth` (lib/portal/state.ts, one per process). The pages report nothing
// there: Next.js may run the proxy apart from them, so the proxy probes for itself.

// Forgets what is known (tests).
export function resetDatabaseHealth(): void {
  const h = getRuntime().part(portalState).databaseHealth;
  h.reachable = undefined;
  h.at = 0;
  h.probing = undefined;
}

// One round trip to the process-wide database; false on any error or after PROBE_TIMEOUT_MS.
export async function probeDatabase(): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
    timer.unref?.();
  });
  const probe = (async () => {
    const db = await getRuntime().db();
    await db.query("select 1");
    return true;
  })().catch((err: unknown) => {
    console.error("[portal] database unreachable:", err instanceof Error ? err.message : String(err));
    return false;
  });
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function startProbe(probe: () => Promise<boolean>, clock: () => number): Promise<boolean> {
  const h = getRuntime().part(portalState).databaseHealth;
  const current = (h.probing ??= probe()
    .catch(() => false)
    .then((answer) => {
      h.reachable = answer;
      h.at = clock();
      return answer;
    })
    .finally(() => {
      if (h.probing === current) h.probing = undefined;
    }));
  return current;
}

// Whether the database answers, from a recent answer when there is one: concurrent callers share one probe; a
// stale "down" answers false at once and re-probes in the background.
export async function databaseReachable(
  probe: () => Promise<boolean> = probeDatabase,
  clock: () => number = Date.now,
): Promise<boolean> {
  const h = getRuntime().part(portalState).databaseHealth;
  const now = clock();
  if (h.reachable !== undefined && now - h.at < (h.reachable ? UP_FRESH_MS : DOWN_FRESH_MS))
    return h.reachable;
  if (h.reachable === false) {
    void startProbe(probe, clock);
    return false;
  }
  return startProbe(probe, clock);
}

// The 503 page a person sees instead of a page that needs the database; `nonce` lets its style pass the CSP.
export function unavailablePage(pathname: string, nonce?: string): Response {
  const n = nonce ? ` nonce="${nonce}"` : "";
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>Temporarily unavailable · Public Catalog API</title>
<style${n}>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0; display: grid; min-height: 100vh; place-items: center; background: Canvas; color: CanvasText; }
  main { max-width: 36rem; padding: 2rem; line-height: 1.5; }
  h1 { font-size: 1.5rem; margin: 0 0 .75rem; }
  a { color: #3b4fd8; }
  @media (prefers-color-scheme: dark) { a { color: #8b9cff; } }
  .muted { opacity: .75; font-size: .9rem; }
</style>
</head>
<body>
<main>
  <h1>This page is temporarily unavailable</h1>
  <p>The database behind <code>${escapeHtml(pathname)}</code> cannot be reached right now. Please try again in a few seconds.</p>
  <p>The <a href="/docs">guides</a> and the <a href="/reference">API reference</a> do not need it and are still available.</p>
  <p class="muted">HTTP 503 · Service Unavailable</p>
</main>
</body>
</html>
`;
  return new Response(html, {
    status: 503,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Retry-After": String(UNAVAILABLE_RETRY_AFTER),
      "Cache-Control": "no-store",
    },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
