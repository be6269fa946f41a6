// The product team's changelog editor: list every entry (drafts included), create a draft, edit (published entries
// too), publish, unpublish, and promote a planned (roadmap) item to released. Staff only (`user.isStaff`, read fresh
// from the database on every request): anyone else gets 403 before the input is even read. Each change and its
// audit event (`changelog.*`, no organization, details: the entry's id and title) are written in one transaction;
// an entry's history is its audit events. The portal, its feeds and the editor's preview read the same rows through
// lib/portal/changelog-reader.ts.
import { z } from "zod";
import type { Database, Executor, Queryable } from "@/db/client";
import { ID_PREFIX, newId } from "@/db/schema";
import {
  CHANGE_TYPES,
  getChangelogEntry,
  listChangelog,
  type ChangelogEntry,
} from "@/lib/portal/changelog-reader";
import type { Config } from "@/lib/config";
import { slugify } from "@/lib/portal/markdown";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { recordAudit, type AuditAction } from "@/lib/audit/record";
import { listStaffAuditForTarget, type AuditEvent } from "./audit-log";
import { ConsoleError } from "./console-errors";
import { parseInput } from "./keys";
import type { ConsoleState } from "./state";

// The signed-in user as the editor's checks need it.
export interface StaffActor {
  id: string;
  email: string;
  isStaff: boolean;
}

// Longest title and body the editor accepts.
export const TITLE_MAX = 200;
export const BODY_MAX = 100_000;

// Every field of an entry the editor sets; the slug is derived (date + title), the status changes by publishing.
const fields = {
  title: z
    .string()
    .trim()
    .min(1, "An entry needs a title.")
    .max(TITLE_MAX, `A title has at most ${TITLE_MAX} characters.`),
  publishedOn: z.iso.date("expected a date YYYY-MM-DD"),
  type: z.enum(CHANGE_TYPES, `expected one of ${CHANGE_TYPES.join(", ")}`),
  breaking: z.boolean(),
  // Paths of the public API's OpenAPI document (checked against it once parsed); duplicates dropped, order kept.
  endpoints: z
    .array(z.string().trim().min(1, "An endpoint is a path such as /public/v1/products."))
    .max(50, "At most 50 endpoints.")
    .transform((list) => [...new Set(list)]),
  bodyMd: z.string().max(BODY_MAX, `A body has at most ${BODY_MAX} characters of markdown.`),
  // A roadmap item: shown under "Roadmap" on /changelog, left out of the feeds, until promoted.
  isPlanned: z.boolean(),
};

// What creating a draft takes: title, date, type; breaking, endpoints, body and planned optional.
export const createChangelogInputSchema = z
  .object({
    ...fields,
    breaking: fields.breaking.default(false),
    endpoints: fields.endpoints.default([]),
    bodyMd: fields.bodyMd.default(""),
    isPlanned: fields.isPlanned.default(false),
  })
  .strict();
export type CreateChangelogInput = z.input<typeof createChangelogInputSchema>;

// What an edit takes: any of the fields; those absent keep their value.
export const editChangelogInputSchema = z.object(fields).partial().strict();
export type EditChangelogInput = z.input<typeof editChangelogInputSchema>;

// What promoting a planned item takes: its release date, today (UTC) when absent.
export const promoteChangelogInputSchema = z.object({ publishedOn: fields.publishedOn.optional() }).strict();
export type PromoteChangelogInput = z.input<typeof promoteChangelogInputSchema>;

// An entry in the editor, with its history (audit events, newest first).
export interface EditorEntry {
  entry: ChangelogEntry;
  history: AuditEvent[];
}

// The paths an entry may name: those of the OpenAPI document this server publishes (kept in the console's state, per
// base URL).
export function changelogEndpointPaths(config: Pick<Config, "baseUrl">, state: ConsoleState): string[] {
  const { baseUrl } = config;
  const cache = state.changelogEndpoints;
  if (cache.value?.baseUrl !== baseUrl) {
    const doc = buildOpenApiDocument(baseUrl) as { paths: Record<string, unknown> };
    cache.value = { baseUrl, paths: Object.keys(doc.paths) };
  }
  return cache.value.paths;
}

// Throws 403 unless the user is on the product team.
export function requireStaff(user: StaffActor): void {
  if (!user.isStaff) {
    throw new ConsoleError("CONSOLE_FORBIDDEN", "Only the product team edits the changelog.");
  }
}

// Every entry, drafts included, newest first (staff).
export async function listEditorEntries(
  db: Database,
  user: StaffActor,
): Promise<{ entries: ChangelogEntry[] }> {
  requireStaff(user);
  return { entries: await listChangelog(db, { drafts: true }) };
}

// One entry and its history (staff); 404 when there is none.
export async function getEditorEntry(db: Database, user: StaffActor, id: string): Promise<EditorEntry> {
  requireStaff(user);
  return { entry: await mustGet(db, id), history: await entryHistory(db, id) };
}

// Creates a draft (staff); its slug is the date and the title ("2026-07-01-media-filters"), made unique.
export async function createEntry(
  db: Database,
  paths: readonly string[],
  user: StaffActor,
  input: unknown,
): Promise<EditorEntry> {
  requireStaff(user);
  // Validated after the staff check: who may not write learns nothing from the input's errors.
  const data = parseInput(createChangelogInputSchema, input);
  checkEndpoints(paths, data.endpoints, []);
  return change(db, async (tx) => {
    const id = newId(ID_PREFIX.changelog);
    const slug = await uniqueSlug(tx, slugFor(data.publishedOn, data.title), id);
    await tx.query(
      `insert into changelog_entries
         (id, slug, title, published_on, type, breaking, endpoints, body_md, is_planned, status, created_by)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'draft', $10)`,
      [
        id,
        slug,
        data.title,
        data.publishedOn,
        data.type,
        data.breaking,
        data.endpoints,
        data.bodyMd,
        data.isPlanned,
        user.id,
      ],
    );
    return audit(tx, user, "changelog.created", id);
  });
}

// Edits an entry (staff), published or not; an edit that changes nothing records nothing. A draft that was never
// published takes the slug of its new date and title; a published one keeps its own (its anchor and feed id).
export async function editEntry(
  db: Database,
  paths: readonly string[],
  user: StaffActor,
  id: string,
  input: unknown,
): Promise<EditorEntry> {
  requireStaff(user);
  const data = parseInput(editChangelogInputSchema, input);
  return change(db, async (tx) => {
    const before = await lockEntry(tx, id);
    // Paths of the document, or ones the entry already names (the roadmap's planned paths are not in it yet).
    if (data.endpoints) checkEndpoints(paths, data.endpoints, before.endpoints);
    const after = { ...before, ...data };
    const changed = (Object.keys(data) as Array<keyof typeof data>).filter(
      (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
    );
    if (changed.length === 0) return { entry: before, history: await entryHistory(tx, id) };
    const slug = await reslug(tx, before, after.publishedOn, after.title);
    await tx.query(
      `update changelog_entries
          set slug = $2, title = $3, published_on = $4, type = $5, breaking = $6, endpoints = $7, body_md = $8,
              is_planned = $9, updated_at = now()
        where id = $1`,
      [
        id,
        slug,
        after.title,
        after.publishedOn,
        after.type,
        after.breaking,
        after.endpoints,
        after.bodyMd,
        after.isPlanned,
      ],
    );
    return audit(tx, user, "changelog.edited", id, { fields: changed });
  });
}

// Publishes an entry (staff): it shows on /changelog and in the feeds at once. Publishing a published entry
// changes nothing.
export function publishEntry(db: Database, user: StaffActor, id: string): Promise<EditorEntry> {
  return setStatus(db, user, id, "published");
}

// Unpublishes an entry (staff): back to a draft, gone from /changelog and the feeds at once.
export function unpublishEntry(db: Database, user: StaffActor, id: string): Promise<EditorEntry> {
  return setStatus(db, user, id, "draft");
}

// Promotes a planned (roadmap) item to released (staff): no longer planned, dated the given day or today (UTC).
// Its status is unchanged (a draft stays a draft). 409 for an entry that is not planned.
export async function promoteEntry(
  db: Database,
  user: StaffActor,
  id: string,
  input: unknown,
): Promise<EditorEntry> {
  requireStaff(user);
  const { publishedOn = new Date().toISOString().slice(0, 10) } = parseInput(
    promoteChangelogInputSchema,
    input,
  );
  return change(db, async (tx) => {
    const before = await lockEntry(tx, id);
    if (!before.isPlanned) throw new ConsoleError("CONSOLE_CHANGELOG_NOT_PLANNED");
    const slug = await reslug(tx, before, publishedOn, before.title);
    await tx.query(
      `update changelog_entries set is_planned = false, published_on = $2, slug = $3, updated_at = now()
        where id = $1`,
      [id, publishedOn, slug],
    );
    return audit(tx, user, "changelog.promoted", id, { publishedOn });
  });
}

async function setStatus(
  db: Database,
  user: StaffActor,
  id: string,
  status: ChangelogEntry["status"],
): Promise<EditorEntry> {
  requireStaff(user);
  return change(db, async (tx) => {
    const before = await lockEntry(tx, id);
    if (before.status === status) return { entry: before, history: await entryHistory(tx, id) };
    await tx.query(`update changelog_entries set status = $2, updated_at = now() where id = $1`, [
      id,
      status,
    ]);
    return audit(tx, user, status === "published" ? "changelog.published" : "changelog.unpublished", id);
  });
}

// Records the event of a change just made (details: the entry's id and title as they are now, and `extra`) and
// answers the entry with its history.
async function audit(
  tx: Executor,
  user: StaffActor,
  action: AuditAction,
  id: string,
  extra: Record<string, unknown> = {},
): Promise<EditorEntry> {
  const entry = await mustGet(tx, id);
  await recordAudit(tx, {
    orgId: null,
    actor: user,
    action,
    targetId: id,
    details: { id, title: entry.title, ...extra },
  });
  return { entry, history: await entryHistory(tx, id) };
}

function entryHistory(db: Queryable, id: string): Promise<AuditEvent[]> {
  return listStaffAuditForTarget(db, id, "changelog.");
}

async function mustGet(db: Queryable, id: string): Promise<ChangelogEntry> {
  const entry = await getChangelogEntry(db, id);
  if (!entry) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such changelog entry.");
  return entry;
}

// The entry, locked until the transaction ends (two editors' changes apply one after the other).
async function lockEntry(tx: Executor, id: string): Promise<ChangelogEntry> {
  await tx.query("select 1 from changelog_entries where id = $1 for update", [id]);
  return mustGet(tx, id);
}

function checkEndpoints(allowed: readonly string[], endpoints: string[], already: string[]): void {
  const unknown = endpoints.find((p) => !allowed.includes(p) && !already.includes(p));
  if (unknown !== undefined) {
    throw new ConsoleError(
      "CONSOLE_INVALID",
      `endpoints: ${JSON.stringify(unknown)} is not a path of the public API (${allowed.join(", ")}).`,
    );
  }
}

// "2026-07-01" + "Media filters!" → "2026-07-01-media-filters" (at most 80 characters of title).
function slugFor(publishedOn: string, title: string): string {
  const words = slugify(title).slice(0, 80).replace(/-+$/, "");
  return `${publishedOn}-${words || "entry"}`;
}

// The first of base, base-2, base-3, … that no other entry has.
async function uniqueSlug(tx: Queryable, base: string, selfId: string): Promise<string> {
  // A slug holds only [a-z0-9-]: nothing in it is a LIKE wildcard.
  const rows = await tx.query<{ slug: string }>(
    "select slug from changelog_entries where (slug = $1 or slug like $2) and id <> $3",
    [base, `${base}-%`, selfId],
  );
  const taken = new Set(rows.map((r) => r.slug));
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  return slug;
}

// A draft that was never published follows its date and title; otherwise the slug stays (links and feed ids).
async function reslug(tx: Queryable, before: ChangelogEntry, publishedOn: string, title: string) {
  if (before.status !== "draft") return before.slug;
  const [seen] = await tx.query(
    `select 1 from audit_events
      where org_id is null and target_id = $1 and action in ('changelog.published', 'changelog.unpublished')
      limit 1`,
    [before.id],
  );
  if (seen) return before.slug;
  const base = slugFor(publishedOn, title);
  return new RegExp(`^${base}(?:-\\d+)?$`).test(before.slug) ? before.slug : uniqueSlug(tx, base, before.id);
}

// Runs a change in a transaction; a slug taken by a concurrent writer between the check and the write (a unique
// violation) runs it again, at most three times.
async function change<T>(db: Database, fn: (tx: Executor) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(fn);
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (code !== "23505" || attempt >= 3) throw err;
    }
  }
}
