import type { QueryDef } from "@/lib/catalog/query";
import { PublicApiError } from "./errors";

// Parses and validates URL query parameters against a QueryDef, or throws a 400 naming the parameter.
export function parseQuery<T>(searchParams: URLSearchParams, def: QueryDef<T>): T {
  // Own properties only, on an object without a prototype: "constructor", "toString" or "__proto__" are unknown
  // parameters like any other name, never inherited members of Object.prototype.
  const raw: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of searchParams) {
    const param = Object.hasOwn(def.params, name) ? def.params[name] : undefined;
    if (!param) {
      throw new PublicApiError(
        "PUBLIC_API_INVALID_QUERY",
        `Paramètre « ${truncate(name)} » inconnu. Paramètres acceptés : ${Object.keys(def.params).join(", ")}.`,
      );
    }
    if (param.array) {
      const list = (raw[name] as string[] | undefined) ?? [];
      for (const v of value.split(",")) {
        const item = v.trim();
        if (item) list.push(item);
      }
      raw[name] = list;
    } else if (name in raw) {
      throw new PublicApiError("PUBLIC_API_INVALID_QUERY", `Paramètre « ${name} » fourni plusieurs fois.`);
    } else {
      raw[name] = value;
    }
  }
  const parsed = def.schema.safeParse({ ...raw });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0] ?? "");
  const param = def.params[name];
  const detail = issue.code === "custom" ? issue.message : (param?.expected ?? issue.message);
  const got = raw[name];
  const shown = Array.isArray(got) ? got.join(",") : got;
  throw new PublicApiError(
    "PUBLIC_API_INVALID_QUERY",
    `Paramètre « ${name} » invalide : ${detail}${shown !== undefined ? ` (reçu « ${truncate(shown)} »)` : ""}.`,
  );
}

function truncate(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
