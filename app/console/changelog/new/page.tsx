import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ChangelogEditor } from "@/components/console/changelog-editor";
import { changelogEndpointPaths } from "@/lib/console/changelog-editor";
import { CHANGE_TYPES } from "@/lib/portal/changelog-reader";
import { pageSession } from "../../page-session";

export const metadata: Metadata = { title: "New changelog entry" };
export const dynamic = "force-dynamic";

// A new changelog entry (product team only): the empty form and its live preview; "Create draft" opens the entry's
// editor.
export default async function NewChangelogEntryPage() {
  const { config, state, user, csrfToken } = await pageSession("/console/changelog/new");
  if (!user.isStaff) notFound();
  return (
    <div className="docs-content console-wide">
      <p>
        <Link href="/console/changelog">← Changelog</Link>
      </p>
      <h1>New entry</h1>
      <p className="lead">The entry is saved as a draft: nobody else sees it until you publish it.</p>
      <ChangelogEditor
        entry={null}
        endpoints={changelogEndpointPaths(config, state)}
        types={CHANGE_TYPES}
        csrfToken={csrfToken}
        today={new Date().toISOString().slice(0, 10)}
      />
    </div>
  );
}
