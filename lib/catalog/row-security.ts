import "server-only";
import { setLocalSql, type Database, type LocalSettings, type Queryable } from "@/db/client";
import type { CatalogContext } from "./context";

// Row-level security on the catalog (migration 0025; DB_ROW_SECURITY): a defense in depth behind the `org_id = $1`
// that every catalog statement writes. The public API's catalog reads run as the role catalog_reader, whose policies
// show it the rows of the organization set in `app.org_id` only, both set for the statement's transaction. A
// statement that forgot its organization's condition then reads the key's organization alone, never another's.
// The connecting role (superuser or owner) is not bound: whatever does not go through here is unchanged.

/** The role the policies of migration 0025 bind. */
export const CATALOG_READER_ROLE = "catalog_reader";
/** The setting that names the organization whose rows catalog_reader sees. */
export const ORG_SETTING = "app.org_id";

// The settings of a transaction that reads one organization's catalog under row security.
export function rowSecuritySettings(orgId: string): LocalSettings {
  return { role: CATALOG_READER_ROLE, [ORG_SETTING]: orgId };
}

// A request's catalog context under row security: its statements (page, count, version reads) each in a transaction
// of its own as catalog_reader for the organization, whose settings go with the BEGIN (db/client.ts:
// withLocalSettings; on a pipelined pool, no round trip more than without). The caches stay the runtime's: every one
// of their entries is keyed by its organization.
export function rowSecureCatalog(
  ctx: CatalogContext,
  db: Pick<Database, "withLocalSettings">,
  orgId: string,
  countTimeoutMs: number,
): CatalogContext {
  const settings = rowSecuritySettings(orgId);
  return {
    ...ctx,
    db: db.withLocalSettings(settings),
    counting: db.withLocalSettings(settings, { statementTimeoutMs: countTimeoutMs }),
    rowSecurity: settings,
  };
}

// Sets a context's row-security settings, if any, in a transaction of its own making (an export's snapshot, whose
// SET TRANSACTION must come first).
export async function applyRowSecurity(ctx: CatalogContext, tx: Queryable): Promise<void> {
  if (ctx.rowSecurity) await tx.query(setLocalSql(ctx.rowSecurity));
}
