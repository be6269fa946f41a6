// Next.js' start-up hook (runs once per server process): with the `webhooks` preview on, opens the runtime's
// database at once, which starts the webhooks' engine beside the change log's retention (lib/runtime.ts), so that
// deliveries left by the previous process go on after a restart without waiting for a first request.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ getRuntime }, { previewOn }] = await Promise.all([
    import("@/lib/runtime"),
    import("@/lib/preview"),
  ]);
  const rt = getRuntime();
  if (!previewOn("webhooks", rt.config)) return;
  await rt.db().catch((err: unknown) => console.error("webhooks: the database did not open at start:", err));
}
