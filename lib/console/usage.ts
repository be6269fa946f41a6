// The console's usage and request log of one organization (owners and admins; a member is refused like the audit
// log): the query of each page and route validated with zod, the organization's keys for the key filter, and only the
// organization's own rows read (lib/usage/queries.ts takes its id first).
import "server-only";
import { z } from "zod";
import { listApiKeys } from "@/lib/keys/store";
import type { Database } from "@/db/client";
import type { Config } from "@/lib/config";
import {
  dayOf,
  listLogDrops,
  listRequestLog,
  usageSeries,
  windowStart,
  type LogDrops,
  type LoggedRequest,
  type UsagePoint,
} from "@/lib/usage/queries";
import { hourOf } from "@/lib/usage/recorder";
import { mergeInto, percentile } from "@/lib/usage/histogram";
import { requireRole, type Actor, type Membership } from "./access";
import { ConsoleError } from "./console-errors";
import { parseInput } from "./keys";

// Days of usage shown.
export const USAGE_DAYS = 30;
// Entries per page of the request log.
export const LOG_PAGE_SIZE = 50;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

// An empty form field is an absent one.
const optional = <S extends z.ZodType>(schema: S) =>
  z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

// The usage page's and route's query: `key`, one of the organization's key ids (absent: all keys).
export const usageQuerySchema = z.object({ key: optional(z.string().max(100)) }).strict();
export type UsageQuery = z.output<typeof usageQuerySchema>;

// The request log's query: key id, status (a class such as 4xx or an exact status such as 404), path prefix, request
// id, and the cursor of the next page.
export const requestsQuerySchema = z
  .object({
    key: optional(z.string().max(100)),
    status: optional(
      z
        .string()
        .trim()
        .regex(/^(?:[1-5]xx|[1-5]\d\d)$/i, "expected a class such as 4xx or a status such as 404")
        .transform((s) => s.toLowerCase()),
    ),
    path: optional(z.string().trim().max(500).regex(/^\//, "expected a path starting with /")),
    requestId: optional(
      z
        .string()
        .trim()
        .max(100)
        .regex(/^[\w-]+$/, "expected a request id (letters, digits, - and _)"),
    ),
    cursor: optional(
      z
        .string()
        .max(300)
        .regex(/^[\w-]+$/, "expected the cursor of a page"),
    ),
  })
  .strict();
export type RequestsQuery = z.output<typeof requestsQuerySchema>;

// A key as the filters offer it: never the key, its display prefix.
export interface KeyChoice {
  id: string;
  name: string;
  prefix: string;
  status: string;
}

// A period's figures as the console shows them (no histogram).
export type UsageFigures = Omit<UsagePoint, "latency">;

// The usage of an organization or of one of its keys over the last USAGE_DAYS days.
export interface OrgUsage extends Membership {
  keys: KeyChoice[];
  /** The key shown (null: all keys). */
  key: KeyChoice | null;
  /** The window's first hour and its last (the current one), ms since the epoch. */
  from: number;
  to: number;
  /** Each day of the window, oldest first, days without a request included (zeros). */
  days: UsageFigures[];
  /** The hours with at least one request, oldest first. */
  hours: UsageFigures[];
  /** The whole window. */
  total: UsageFigures;
}

// Reads an object of query parameters from a URL's search (a repeated parameter: its last value).
export function searchObject(search: URLSearchParams): Record<string, string> {
  return Object.fromEntries(search.entries());
}

async function keyChoices(db: Database, orgId: string): Promise<KeyChoice[]> {
  const keys = await listApiKeys(db, orgId);
  return keys.map((k) => ({ id: k.id, name: k.name, prefix: k.prefix, status: k.status }));
}

function pickKey(keys: KeyChoice[], id: string | undefined): KeyChoice | null {
  if (!id) return null;
  const key = keys.find((k) => k.id === id);
  if (!key) throw new ConsoleError("CONSOLE_INVALID", "key: no such key in this organization.");
  return key;
}

function figures(p: UsagePoint): UsageFigures {
  const { latency: _latency, ...rest } = p;
  return rest;
}

// The organization's usage (owners and admins), per day and per hour, for all keys or one.
export async function orgUsage(
  db: Database,
  user: Actor,
  orgSlug: string,
  input: unknown,
  now = Date.now(),
): Promise<OrgUsage> {
  const membership = await requireRole(db, user, orgSlug, "admin");
  const query = parseInput(usageQuerySchema, input);
  const keys = await keyChoices(db, membership.org.id);
  const key = pickKey(keys, query.key);
  const from = windowStart(now, USAGE_DAYS);
  const opts = { since: from, keyId: key?.id };
  const hours = await usageSeries(db, membership.org.id, { ...opts, unit: "hour" });
  const dayRows = await usageSeries(db, membership.org.id, { ...opts, unit: "day" });
  const byDay = new Map(dayRows.map((d) => [d.t, d]));
  const days: UsageFigures[] = [];
  for (let t = dayOf(from); t <= dayOf(now); t += DAY_MS) {
    const d = byDay.get(t);
    days.push(d ? figures(d) : zero(t));
  }
  const merged = new Array<number>(dayRows[0]?.latency.length ?? 0).fill(0);
  const total = zero(from);
  for (const d of dayRows) {
    mergeInto(merged, d.latency);
    total.c2xx += d.c2xx;
    total.c3xx += d.c3xx;
    total.c4xx += d.c4xx;
    total.c5xx += d.c5xx;
    total.c429 += d.c429;
  }
  total.p50 = percentile(merged, 0.5);
  total.p95 = percentile(merged, 0.95);
  return { ...membership, keys, key, from, to: hourOf(now), days, hours: hours.map(figures), total };
}

function zero(t: number): UsageFigures {
  return { t, c2xx: 0, c3xx: 0, c4xx: 0, c5xx: 0, c429: 0, p50: null, p95: null };
}

// The request log of an organization (owners and admins): a page, the filters as read, the drop counters.
export interface OrgRequests extends Membership {
  keys: KeyChoice[];
  filter: RequestsQuery;
  entries: LoggedRequest[];
  /** The cursor of the next page (null: the last page). */
  next: string | null;
  /** Requests not logged in the current hour (UTC). */
  thisHour: LogDrops | null;
  /** Hours of the last day with requests not logged, newest first. */
  drops: LogDrops[];
  /** Whether the log is on here (REQUEST_LOG_ENABLED), and its bounds. */
  enabled: boolean;
  maxPerOrg: number;
  maxAgeDays: number;
  maxPerSecond: number;
}

// A page of the organization's request log, newest first, filtered.
export async function orgRequests(
  db: Database,
  config: Config,
  user: Actor,
  orgSlug: string,
  input: unknown,
  now = Date.now(),
): Promise<OrgRequests> {
  const membership = await requireRole(db, user, orgSlug, "admin");
  const filter = parseInput(requestsQuerySchema, input);
  const keys = await keyChoices(db, membership.org.id);
  pickKey(keys, filter.key);
  const page = await listRequestLog(
    db,
    membership.org.id,
    {
      keyId: filter.key,
      status: filter.status,
      path: filter.path,
      requestId: filter.requestId,
      cursor: filter.cursor,
    },
    LOG_PAGE_SIZE,
  );
  const drops = await listLogDrops(db, membership.org.id, hourOf(now) - 23 * HOUR_MS);
  const current = new Date(hourOf(now)).toISOString();
  return {
    ...membership,
    keys,
    filter,
    entries: page.entries,
    next: page.next,
    thisHour: drops.find((d) => d.hour === current) ?? null,
    drops,
    enabled: config.REQUEST_LOG_ENABLED,
    maxPerOrg: config.REQUEST_LOG_MAX_PER_ORG,
    maxAgeDays: config.REQUEST_LOG_MAX_AGE_DAYS,
    maxPerSecond: config.REQUEST_LOG_MAX_PER_SECOND,
  };
}
