import "server-only";
import type { Queryable } from "@/db/client";
import { getRuntime } from "@/lib/runtime";
import { listChangelog, type ChangelogEntry } from "./changelog-reader";
import { getGuides } from "./guides";
import { inlineMarkdownToText, markdownToText, slugify } from "./markdown";
import { getReferenceEndpoints } from "./reference";
import { portalState, type SearchDoc } from "./state";
import { databaseReachable } from "./unavailable";

// One search hit with a short excerpt around the first match.
export interface SearchHit extends SearchDoc {
  score: number;
  excerpt: string;
}

function fold(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
}

// Every searchable section of the guides and the reference (built once per runtime from code: they change with a
// deployment).
export function searchIndex(): SearchDoc[] {
  const cache = getRuntime().part(portalState).searchDocs;
  if (cache.value) return cache.value;
  const docs: SearchDoc[] = [];
  for (const g of getGuides()) {
    const parts = g.markdown.split(/^(?=#{2,3} )/m);
    for (const part of parts) {
      const m = /^#{2,3} (.+)$/m.exec(part);
      const heading = m && part.startsWith("#") ? m[1]!.trim() : undefined;
      const plainHeading = heading ? inlineMarkdownToText(heading) : undefined;
      docs.push({
        kind: "Guide",
        title: plainHeading ? `${g.title} › ${plainHeading}` : g.title,
        url: plainHeading ? `/docs/${g.slug}#${slugify(plainHeading)}` : `/docs/${g.slug}`,
        text: markdownToText(heading ? part.slice(m![0].length) : `${g.description} ${part}`),
      });
    }
  }
  for (const e of getReferenceEndpoints()) {
    docs.push({
      kind: "Reference",
      title: `GET ${e.path} — ${e.summary}`,
      url: `/reference/${e.slug}`,
      text: `${e.description} Scope ${e.scope}. Parameters: ${e.params.map((p) => p.name).join(", ")}. Fields: ${e.itemFields.map((f) => f.name).join(", ")}.`,
    });
    for (const p of e.params) {
      docs.push({
        kind: "Reference",
        title: `${e.path} › ${p.name}`,
        url: `/reference/${e.slug}#param-${p.name}`,
        text: `${p.type}. ${markdownToText(p.description)}${p.allowed ? ` Allowed: ${p.allowed.join(", ")}.` : ""}`,
      });
    }
  }
  cache.value = docs;
  return docs;
}

function excerpt(text: string, term: string): string {
  const at = fold(text).indexOf(term);
  if (at < 0) return text.slice(0, 160);
  const start = Math.max(0, at - 60);
  return `${start > 0 ? "…" : ""}${text.slice(start, start + 180)}${start + 180 < text.length ? "…" : ""}`;
}

// Searches guides and reference, and `extra` documents (the changelog's): every word of the query must appear; title
// matches rank first.
export function search(query: string, limit = 30, extra: readonly SearchDoc[] = []): SearchHit[] {
  const terms = fold(query)
    .split(/[^a-z0-9:_./{}-]+/)
    .filter((t) => t.length > 0)
    .slice(0, 10);
  if (terms.length === 0) return [];
  const hits: SearchHit[] = [];
  for (const d of [...searchIndex(), ...extra]) {
    const title = fold(d.title);
    const text = fold(d.text);
    let score = 0;
    let all = true;
    for (const t of terms) {
      const inTitle = title.includes(t);
      const count = text.split(t).length - 1;
      if (!inTitle && count === 0) {
        all = false;
        break;
      }
      score += (inTitle ? 10 : 0) + Math.min(count, 5);
    }
    if (all) hits.push({ ...d, score, excerpt: excerpt(d.text, terms[0]!) });
  }
  return hits.sort((a, b) => b.score - a.score || a.title.localeCompare(b.title)).slice(0, limit);
}

// The searchable documents of changelog entries (published ones: listChangelog shows no drafts).
export function changelogDocs(entries: readonly ChangelogEntry[]): SearchDoc[] {
  return entries.map((e) => ({
    kind: "Changelog",
    title: `Changelog › ${e.title}`,
    url: `/changelog#${e.slug}`,
    text: `${e.isPlanned ? "Planned." : e.publishedOn} ${e.type}${e.breaking ? " (breaking)" : ""}. ${markdownToText(e.bodyMd)}${e.endpoints.length ? ` Endpoints: ${e.endpoints.join(", ")}.` : ""}`,
  }));
}

// The search page's answer: guides and reference (from code), and the published changelog entries read from the
// database on every search, so that an entry published or unpublished in the console is found, or not, at once.
// While the database is unreachable the search still answers from guides and reference, with changelogUnavailable
// set (a known outage is not waited for: the portal's shared health check answers at once). `db` is for tests.
export async function searchPortal(
  query: string,
  options: { db?: Queryable; limit?: number } = {},
): Promise<{ hits: SearchHit[]; changelogUnavailable: boolean }> {
  if (!query.trim()) return { hits: [], changelogUnavailable: false };
  let entries: ChangelogEntry[] | undefined;
  try {
    if (options.db || (await databaseReachable())) entries = await listChangelog(options.db);
  } catch (err) {
    console.error("[portal] search without the changelog:", err instanceof Error ? err.message : String(err));
  }
  return {
    hits: search(query, options.limit, entries ? changelogDocs(entries) : []),
    changelogUnavailable: entries === undefined,
  };
}
