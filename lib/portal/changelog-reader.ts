// The changelog as it is read: its entries (the published ones for the portal, its feeds and its search; the drafts
// too for the console's editor, lib/console/changelog-editor.ts) and the RSS and Atom feeds built from them.
import "server-only";
import { randomUUID } from "node:crypto";
import { Feed } from "feed";
import type { Queryable } from "@/db/client";
import { getConfig } from "@/lib/config";
import { getRuntime } from "@/lib/runtime";
import { errorResponse } from "@/lib/public-api/error-response";
import { baseHeaders } from "@/lib/public-api/headers";
import { escapeHtml, markdownToText, renderChangelogBody } from "./markdown";

// The one renderer of a changelog body (the page, the feeds, the console editor's preview).
export { renderChangelogBody };

// The change types of Keep a Changelog.
export const CHANGE_TYPES = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"] as const;

// One changelog entry as the portal renders it.
export interface ChangelogEntry {
  id: string;
  slug: string;
  title: string;
  /** YYYY-MM-DD */
  publishedOn: string;
  type: (typeof CHANGE_TYPES)[number];
  breaking: boolean;
  endpoints: string[];
  bodyMd: string;
  isPlanned: boolean;
  /** A draft is seen only in the console's editor; the portal, its feeds and its search show published entries. */
  status: ChangelogStatus;
}

// An entry's state in the editor.
export const CHANGELOG_STATUSES = ["draft", "published"] as const;
export type ChangelogStatus = (typeof CHANGELOG_STATUSES)[number];

interface Row {
  id: string;
  slug: string;
  title: string;
  published_on: string | Date;
  type: ChangelogEntry["type"];
  breaking: boolean;
  endpoints: string[] | string | null;
  body_md: string;
  is_planned: boolean;
  status: ChangelogStatus;
}

function day(value: string | Date): string {
  if (value instanceof Date) {
    // A `date` column comes back as local midnight from some drivers: read the local calendar day.
    const y = value.getFullYear();
    const m = String(value.getMonth() + 1).padStart(2, "0");
    const d = String(value.getDate()).padStart(2, "0");
    return `${y}-${m}-${d}`;
  }
  return value.slice(0, 10);
}

function textArray(value: Row["endpoints"]): string[] {
  if (Array.isArray(value)) return value;
  if (!value) return [];
  // Drivers that do not parse arrays return the Postgres literal {a,b}.
  return value
    .replace(/^\{|\}$/g, "")
    .split(",")
    .filter(Boolean)
    .map((v) => v.replace(/^"|"$/g, ""));
}

const COLUMNS = `id, slug, title, published_on::text as published_on, type, breaking, endpoints, body_md, is_planned,
       status`;

function toEntry(r: Row): ChangelogEntry {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    publishedOn: day(r.published_on),
    type: r.type,
    breaking: r.breaking,
    endpoints: textArray(r.endpoints),
    bodyMd: r.body_md,
    isPlanned: r.is_planned,
    status: r.status,
  };
}

// The changelog, newest first: the published entries (those of the roadmap, `isPlanned`, included), read from the
// database on every call so that publishing or unpublishing shows at once; `drafts: true` (the console's editor)
// adds the drafts. A database that cannot be reached throws the driver's own error, which isUnavailableError
// recognises: the feeds answer it with a 503.
export async function listChangelog(
  db?: Queryable,
  options: { drafts?: boolean } = {},
): Promise<ChangelogEntry[]> {
  const database = db ?? (await getRuntime().db());
  const rows = await database.query<Row>(
    `select ${COLUMNS}
       from changelog_entries
      ${options.drafts ? "" : "where status = 'published'"}
      order by published_on desc, created_at desc, id desc`,
  );
  return rows.map(toEntry);
}

// One entry by id, whatever its status (the editor's); undefined when there is none.
export async function getChangelogEntry(db: Queryable, id: string): Promise<ChangelogEntry | undefined> {
  const rows = await db.query<Row>(`select ${COLUMNS} from changelog_entries where id = $1`, [id]);
  return rows[0] ? toEntry(rows[0]) : undefined;
}

// The answer to GET /changelog/rss.xml or /changelog/atom.xml: the feed, or an error in the public API's shape
// (503 PUBLIC_API_UNAVAILABLE with Retry-After while the database cannot be reached; never stored by caches).
export async function changelogFeedResponse(format: "rss" | "atom"): Promise<Response> {
  try {
    const xml = changelogFeed(await listChangelog(), getConfig().baseUrl, format);
    return new Response(xml, {
      headers: {
        "Content-Type": `application/${format === "rss" ? "rss" : "atom"}+xml; charset=utf-8`,
        // Caches revalidate every time: an entry unpublished in the console leaves the feeds at once.
        "Cache-Control": "public, no-cache",
      },
    });
  } catch (err) {
    const requestId = randomUUID();
    return errorResponse(err, requestId, baseHeaders(requestId));
  }
}

// Builds the RSS 2.0 or Atom 1.0 feed of the published entries (planned ones are not news yet).
export function changelogFeed(entries: ChangelogEntry[], baseUrl: string, format: "rss" | "atom"): string {
  const published = entries.filter((e) => !e.isPlanned);
  const updated = published[0] ? new Date(`${published[0].publishedOn}T00:00:00Z`) : new Date(0);
  const feed = new Feed({
    id: `${baseUrl}/changelog`,
    title: "Public Catalog API changelog",
    description: "Changes to the Public Catalog API, newest first.",
    link: `${baseUrl}/changelog`,
    language: "en",
    updated,
    generator: false,
    copyright: "Public Catalog API",
    feedLinks: { rss: `${baseUrl}/changelog/rss.xml`, atom: `${baseUrl}/changelog/atom.xml` },
  });
  for (const e of published) {
    const link = `${baseUrl}/changelog#${e.slug}`;
    const date = new Date(`${e.publishedOn}T00:00:00Z`);
    feed.addItem({
      id: link,
      guid: link,
      // Feed readers read the title and the summary as HTML (Atom says so: type="html"): both are escaped text, so
      // that "<API_KEY>" shows and "<script>" or "]]>" typed by an author stays inert.
      title: escapeHtml(`${e.type}${e.breaking ? " (breaking)" : ""}: ${e.title}`),
      link,
      date,
      published: date,
      description: escapeHtml(markdownToText(e.bodyMd).slice(0, 300)),
      content: renderChangelogBody(e.bodyMd, { absoluteBase: baseUrl }),
      // The feed library leaves "<" and ">" raw in Atom's label attribute (malformed XML): a path has them
      // percent-encoded anyway.
      category: [
        { name: e.type },
        ...e.endpoints.map((p) => ({ name: p.replace(/[<>]/g, encodeURIComponent) })),
      ],
    });
  }
  return format === "rss" ? feed.rss2() : feed.atom1();
}
