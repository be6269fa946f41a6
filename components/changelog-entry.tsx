// Pure (no server-only import): the console editor's live preview renders it in the browser.
import type { ChangelogEntry } from "@/lib/portal/changelog-reader";
import { renderChangelogBody } from "@/lib/portal/markdown";

// "2026-06-07" → "7 June 2026" (UTC, the same on every server).
export function formatChangelogDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", {
    year: "numeric",
    month: "long",
    day: "numeric",
    timeZone: "UTC",
  });
}

// One changelog entry exactly as /changelog shows it: date (or "Planned"), type, breaking, title with its anchor,
// endpoints, and the body through renderChangelogBody (its headings nested under this h3, CHANGELOG_TITLE_LEVEL). The
// console editor's live preview renders this same component, in the browser, with what is being typed.
export function ChangelogEntryView({ e }: { e: ChangelogEntry }) {
  return (
    <article className="changelog-entry" id={e.slug} aria-labelledby={`${e.slug}-title`}>
      <div className="entry-meta">
        {e.isPlanned ? (
          <span className="tag planned">Planned</span>
        ) : (
          <time dateTime={e.publishedOn}>{formatChangelogDay(e.publishedOn)}</time>
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
