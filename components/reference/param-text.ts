import type { RefParam } from "@/lib/portal/reference";

// A parameter's type as the tables show it: with its format (date-time), when it has one.
export function displayType(p: RefParam): string {
  return p.format ? `${p.type} (${p.format})` : p.type;
}

// A parameter's limits as the tables show them: its range, its length, comma-separated for a list, else "—".
export function paramLimits(p: RefParam): string {
  const parts: string[] = [];
  if (p.minimum !== undefined && p.maximum !== undefined) parts.push(`${p.minimum} to ${p.maximum}`);
  else if (p.minimum !== undefined) parts.push(`≥ ${p.minimum}`);
  else if (p.maximum !== undefined) parts.push(`≤ ${p.maximum}`);
  if (p.maxLength !== undefined) parts.push(`${p.minLength ?? 0} to ${p.maxLength} characters`);
  if (p.array) parts.push("comma-separated");
  return parts.join("; ") || "—";
}
