import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { formatChangelogDay } from "@/components/changelog-entry";
import { listEditorEntries } from "@/lib/console/changelog-editor";
import { DataTable } from "@/components/data-table";
import { pageSession } from "../page-session";

export const metadata: Metadata = { title: "Changelog" };
export const dynamic = "force-dynamic";

// The changelog editor's list (product team only; anyone else gets the 404 page): every entry, drafts included,
// newest first, with its status, and "New entry".
export default async function ChangelogListPage() {
  const { db, user } = await pageSession("/console/changelog");
  if (!user.isStaff) notFound();
  const { entries } = await listEditorEntries(db, user);
  return (
    <div className="docs-content">
      <h1>Changelog</h1>
      <p className="lead">
        Entries of the public <Link href="/changelog">changelog</Link> and its feeds. A draft is seen only
        here; publishing shows it at once, unpublishing takes it back. Every change is recorded in the
        entry&apos;s history.
      </p>
      <p>
        <Link className="button-link" href="/console/changelog/new">
          New entry
        </Link>
      </p>
      {entries.length === 0 ? (
        <p>No entries yet.</p>
      ) : (
        <DataTable label="Changelog entries">
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Title</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id}>
                <td>
                  <time dateTime={e.publishedOn}>{formatChangelogDay(e.publishedOn)}</time>
                </td>
                <td>
                  <Link href={`/console/changelog/${encodeURIComponent(e.id)}`}>{e.title}</Link>
                </td>
                <td>
                  {e.type}
                  {e.breaking ? " · breaking" : ""}
                </td>
                <td>
                  <span className={`entry-status ${e.status}`}>
                    {e.status === "draft" ? "Draft" : "Published"}
                  </span>
                  {e.isPlanned ? <span className="help"> · planned (roadmap)</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </DataTable>
      )}
    </div>
  );
}
