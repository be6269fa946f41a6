import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ChangelogEditor } from "@/components/console/changelog-editor";
import { formatTime } from "@/components/console/format";
import { DataTable } from "@/components/data-table";
import { changelogEndpointPaths, getEditorEntry } from "@/lib/console/changelog-editor";
import { CHANGE_TYPES } from "@/lib/portal/changelog-reader";
import { pageRead, pageSession } from "../../page-session";

export const metadata: Metadata = { title: "Changelog entry" };
export const dynamic = "force-dynamic";

const ACTIONS: Record<string, string> = {
  "changelog.created": "created the draft",
  "changelog.edited": "edited",
  "changelog.published": "published",
  "changelog.unpublished": "unpublished",
  "changelog.promoted": "promoted to released",
};

// One changelog entry in the editor (product team only; anyone else gets the 404 page): the form with its live
// preview (what is being typed, through the very component /changelog renders), publish / unpublish / promote, and
// its history.
export default async function ChangelogEntryPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { db, config, state, user, csrfToken } = await pageSession(`/console/changelog/${id}`);
  if (!user.isStaff) notFound();
  const { entry, history } = await pageRead(getEditorEntry(db, user, id));
  const paths = changelogEndpointPaths(config, state);
  return (
    <div className="docs-content console-wide">
      <p>
        <Link href="/console/changelog">← Changelog</Link>
      </p>
      <h1>{entry.title}</h1>
      <p className="lead">
        {entry.status === "draft"
          ? "A draft: only the product team sees it."
          : "Published: on /changelog and in its feeds; changes show there as soon as they are saved."}
      </p>
      <ChangelogEditor
        entry={entry}
        endpoints={[...paths, ...entry.endpoints.filter((p) => !paths.includes(p))]}
        types={CHANGE_TYPES}
        csrfToken={csrfToken}
        today={new Date().toISOString().slice(0, 10)}
      />
      <section className="console-section" aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        {history.length === 0 ? (
          <p>Nothing recorded yet (an entry that predates the editor).</p>
        ) : (
          <DataTable label="History">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
              </tr>
            </thead>
            <tbody>
              {history.map((e) => (
                <tr key={e.id}>
                  <td>
                    <time dateTime={e.createdAt}>{formatTime(e.createdAt)}</time>
                  </td>
                  <td>{e.actorEmail}</td>
                  <td>{describe(e.action, e.details)}</td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
      </section>
    </div>
  );
}

function describe(action: string, d: Record<string, unknown>): string {
  const what = ACTIONS[action] ?? action;
  if (action === "changelog.edited" && Array.isArray(d.fields)) return `${what}: ${d.fields.join(", ")}`;
  if (action === "changelog.promoted" && typeof d.publishedOn === "string") {
    return `${what} on ${d.publishedOn}`;
  }
  return what;
}
