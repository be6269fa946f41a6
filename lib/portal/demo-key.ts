import "server-only";
import { readDemoKeys } from "@/lib/keys/demo-keys";
import { getConfig } from "@/lib/config";
import { clientAddress, isLoopback } from "@/lib/public-api/client-address";

// The acme demo key the try-it form may offer: only with the embedded demo (PGlite), when the first start saved it,
// and only to a browser on this machine. The server listens on every interface, and the key reads the whole demo
// catalog: a page served to another address never holds it.
export function getDemoKey(requestHeaders: { get(name: string): string | null }): string | undefined {
  const config = getConfig();
  if (config.dbDriver !== "pglite") return undefined;
  if (!isLoopback(clientAddress(requestHeaders))) return undefined;
  const key = readDemoKeys(config.DATA_DIR)?.keys.find((k) => k.org === "acme")?.key;
  return typeof key === "string" && key.startsWith("pca_") ? key : undefined;
}
