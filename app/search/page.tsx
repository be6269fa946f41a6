import type { Metadata } from "next";
import Link from "next/link";
import { searchPortal } from "@/lib/portal/search";

type Props = { searchParams: Promise<{ q?: string | string[] }> };

// Title and description of the search page (the query in the title).
export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  const q = (await searchParams).q;
  const text = (Array.isArray(q) ? q[0] : q)?.trim();
  return {
    title: text ? `Search: ${text.slice(0, 60)}` : "Search",
    description: "Search the guides, the API reference and the changelog of the Public Catalog API.",
    robots: { index: false },
  };
}

// Search over guides, reference and changelog, server-rendered (works without JavaScript); the changelog's entries
// are read per request, so publishing or unpublishing one shows here at once.
export default async function SearchPage({ searchParams }: Props) {
  const raw = (await searchParams).q;
  const q = ((Array.isArray(raw) ? raw[0] : raw) ?? "").slice(0, 200);
  const { hits, changelogUnavailable } = await searchPortal(q);
  return (
    <div className="docs-content">
      <h1>Search</h1>
      <form role="search" action="/search" method="get" className="big-search">
        <label htmlFor="search-page-q" className="visually-hidden">
          Search guides and reference
        </label>
        <input
          id="search-page-q"
          name="q"
          type="search"
          defaultValue={q}
          placeholder="perPage, 429, scope…"
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      {q.trim() ? (
        <p className="muted" role="status">
          {hits.length} result{hits.length === 1 ? "" : "s"} for “{q}”
          {changelogUnavailable
            ? " in the guides and reference (the changelog cannot be searched right now)"
            : ""}
        </p>
      ) : (
        <p className="muted">
          Search the guides, every endpoint, parameter and field of the reference, and the changelog.
        </p>
      )}
      <ul className="search-results">
        {hits.map((h) => (
          <li key={`${h.url} ${h.title}`}>
            <span className="tag">{h.kind}</span> <Link href={h.url}>{h.title}</Link>
            <p>{h.excerpt}</p>
          </li>
        ))}
      </ul>
    </div>
  );
}
