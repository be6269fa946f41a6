import "server-only";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { getConfig } from "@/lib/config";

// The acme demo key the try-it form may offer: only with the embedded demo (PGlite) and when the start script saved it.
export async function getDemoKey(): Promise<string | undefined> {
  const config = getConfig();
  if (config.dbDriver !== "pglite") return undefined;
  try {
    const raw = await readFile(path.resolve(config.DATA_DIR, "demo-keys.json"), "utf8");
    const file = JSON.parse(raw) as { acme?: unknown; keys?: { org?: unknown; key?: unknown }[] };
    // Either { acme: "<key>" } or { keys: [{ org: "acme", key: "<key>" }, …] } (what the start script writes).
    const key = Array.isArray(file.keys) ? file.keys.find((k) => k?.org === "acme")?.key : file.acme;
    return typeof key === "string" && key.startsWith("pca_") ? key : undefined;
  } catch {
    return undefined;
  }
}
