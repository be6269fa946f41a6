import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ChangelogEditor } from "@/components/console/changelog-editor";
import { changelogEndpointPaths } from "@/lib/console/changelog-editor";
import { csrfTokenFor } from "@/lib/console/http";
import { getConsoleUser } from "@/lib/console/session";
import { CHANGE_TYPES } from "@/lib/portal/changelog-reader";
import { getRuntime } from "@/lib/runtime";

export const metadata: Metadata = { title: "New changelog entry" };
export const dynamic = "force-dynamic";

// A new changelog entry (product team only): the empty form and its live preview; "Create draft" opens the entry's
// editor.
export default async function NewChangelogEntryPage() {
  const rt = getRuntime();
  const requestHeaders = await headers();
  const user = await getConsoleUser(requestHeaders, rt);
  if (!user) redirect(`/console/sign-in?callbackUrl=${encodeURIComponent("/console/changelog/new")}`);
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
        endpoints={changelogEndpointPaths(rt)}
        types={CHANGE_TYPES}
        csrfToken={csrfTokenFor(rt.config, user.id, requestHeaders)}
        today={new Date().toISOString().slice(0, 10)}
      />
    </div>
  );
}
