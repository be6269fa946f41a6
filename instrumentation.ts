// Next.js' start-up hook (runs once per server process, Node.js runtime):
// - Under a bare `next start` (or `next dev`), the front door of npm start's server (lib/server/front-server.ts) put
//   before Next.js' own listener, so that hostile transport is answered alike (a malformed path, TRACE, a doubled
//   slash under /public/ are the API's 400, 405 and canonical answer, not Next.js' 500s and 308). npm start's server
//   has it already and is left alone; on Vercel the platform's front end comes first (nothing done).
// - With the `webhooks` preview on, opens the runtime's database at once, which starts the webhooks' engine beside
//   the change log's retention (lib/runtime.ts), so that deliveries left by the previous process go on after a
//   restart without waiting for a first request.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ getRuntime }, { previewOn }, { guardFirstServer }] = await Promise.all([
    import("@/lib/runtime"),
    import("@/lib/preview"),
    import("@/lib/server/front-server"),
  ]);
  const rt = getRuntime();
  if (!process.env.VERCEL) guardFirstServer(rt.config.TRUST_PROXY);
  if (!previewOn("webhooks", rt.config)) return;
  await rt.db().catch((err: unknown) => console.error("webhooks: the database did not open at start:", err));
}
