// How the console shows a stored timestamp (ISO with milliseconds, UTC): "2026-06-07 14:05 UTC", the same on the
// server and in the browser (no locale, so hydration agrees).
export function formatTime(iso: string | null | undefined, empty = "—"): string {
  if (!iso) return empty;
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
