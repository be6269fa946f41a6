const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

// Parses a duration such as "30s", "90m", "12h", "30d" or "2w" into milliseconds; null when malformed or zero.
export function parseDuration(text: string): number | null {
  const m = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  if (!m) return null;
  const ms = Number(m[1]) * UNITS[m[2]!]!;
  return ms > 0 ? ms : null;
}
