import type { Metadata } from "next";
import { listChangelog, renderChangelogBody, type ChangelogEntry } from "@/lib/portal/changelog";

// Read from the database on every request: an entry published or unpublished in the console shows at once.
export const dynamic = "force-dynamic";

// Title and description of the changelog.
export const metadata: Metadata = {
  title: "Changelog",
  description:
    "Every change to the Public Catalog API, newest first, and the roadmap of planned items. Also as RSS and Atom feeds.",
};

function formatDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", {
    year: "numeric",
    month: "long",
    day: "numeric",
    timeZone: "UTC",
  });
}

function Entry({ e }: { e: ChangelogEntry }) {
  return (
    <article className="changelog-entry" id={e.slug} aria-labelledby={`${e.slug}-title`}>
      <div className="entry-meta">
        {e.isPlanned ? (
          <span className="tag planned">Planned</span>
        ) : (
          <time dateTime={e.publishedOn}>{formatDay(e.publishedOn)}</time>
        )}
        <span className={`tag ${e.type.toLowerCase()}`}>{e.type}</span>
        {e.breaking ? <span className="tag breaking">Breaking</span> : null}
      </div>
      <h3 id={`${e.slug}-title`}>
        <a href={`#${e.slug}`} className="anchor-link">
          {e.title}
        </a>
      </h3>
      {e.endpoints.length ? (
        <p className="entry-meta">
          Endpoints:{" "}
          {e.endpoints.map((p, i) => (
            <span key={p}>
              {i ? ", " : ""}
              <code>{p}</code>
            </span>
          ))}
        </p>
      ) : null}
      {/* Inert whatever its author typed: markdown, then the allow-list sanitizer. */}
      <div className="prose" dangerouslySetInnerHTML={{ __html: renderChangelogBody(e.bodyMd) }} />
    </article>
  );
}

// The changelog: published entries newest first, each with its anchor, then the roadmap.
export default async function ChangelogPage() {
  const entries = await listChangelog();
  const published = entries.filter((e) => !e.isPlanned);
  const planned = entries.filter((e) => e.isPlanned);
  return (
    <div className="docs-content">
      <h1>Changelog</h1>
      <p className="lead">
        Changes to the Public Catalog API, newest first, following{" "}
        <a href="https://keepachangelog.com/en/1.1.0/">Keep a Changelog</a>. Subscribe with{" "}
        <a href="/changelog/rss.xml">RSS</a> or <a href="/changelog/atom.xml">Atom</a>.
      </p>
      <section aria-labelledby="released">
        <h2 id="released">Released</h2>
        {published.length ? published.map((e) => <Entry key={e.id} e={e} />) : <p>No entries yet.</p>}
      </section>
      <section aria-labelledby="roadmap">
        <h2 id="roadmap">Roadmap</h2>
        <p className="muted">Planned, not available yet. Dates and contracts may change.</p>
        {planned.length ? planned.map((e) => <Entry key={e.id} e={e} />) : <p>Nothing planned.</p>}
      </section>
    </div>
  );
}
