import type { Metadata } from "next";
import { ChangelogEntryView } from "@/components/changelog-entry";
import { listChangelog } from "@/lib/portal/changelog-reader";

// Read from the database on every request: an entry published or unpublished in the console shows at once.
export const dynamic = "force-dynamic";

// Title and description of the changelog.
export const metadata: Metadata = {
  title: "Changelog",
  description:
    "Every change to the Public Catalog API, newest first, and the roadmap of planned items. Also as RSS and Atom feeds.",
};

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
        {published.length ? (
          published.map((e) => <ChangelogEntryView key={e.id} e={e} />)
        ) : (
          <p>No entries yet.</p>
        )}
      </section>
      <section aria-labelledby="roadmap">
        <h2 id="roadmap">Roadmap</h2>
        <p className="muted">Planned, not available yet. Dates and contracts may change.</p>
        {planned.length ? (
          planned.map((e) => <ChangelogEntryView key={e.id} e={e} />)
        ) : (
          <p>Nothing planned.</p>
        )}
      </section>
    </div>
  );
}
