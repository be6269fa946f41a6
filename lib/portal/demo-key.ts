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
    const keys = JSON.parse(raw) as { acme?: unknown };
    return typeof keys.acme === "string" && keys.acme.length > 0 ? keys.acme : undefined;
  } catch {
    return undefined;
  }
}
