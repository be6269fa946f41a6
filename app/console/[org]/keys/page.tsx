import type { Metadata } from "next";
import { previewOn } from "@/lib/preview";
import Link from "next/link";
import { KeysManager } from "@/components/console/keys-manager";
import { GRACE_OPTIONS, keyScopeChoices, listOrgKeys } from "@/lib/console/keys";
import { pageRead, pageSession } from "../../page-session";

export const metadata: Metadata = { title: "API keys" };
export const dynamic = "force-dynamic";

// An organization's API keys: the list for every member; create, roll and revoke for owners and admins.
export default async function KeysPage({ params }: { params: Promise<{ org: string }> }) {
  const { org: slug } = await params;
  const { db, config, user, csrfToken } = await pageSession(`/console/${slug}/keys`);
  const listed = await pageRead(listOrgKeys(db, user, slug), slug);
  return (
    <div className="docs-content">
      <h1>API keys · {listed.org.name}</h1>
      <p className="lead">
        Keys give read access to this organization&apos;s catalog through the public API
        {previewOn("writes", config)
          ? " (and, with products:write, product creation: write preview)"
          : ""}.{" "}
        {listed.canManage ? (
          <>
            Every create, roll and revoke is recorded in the{" "}
            <Link href={`/console/${encodeURIComponent(listed.org.slug)}/audit`}>audit log</Link>.
          </>
        ) : (
          "Owners and admins create, roll and revoke them."
        )}
      </p>
      <KeysManager
        org={listed.org.slug}
        keys={listed.keys}
        canManage={listed.canManage}
        csrfToken={listed.canManage ? csrfToken : ""}
        scopes={keyScopeChoices(config)}
        graceOptions={GRACE_OPTIONS.map((g) => ({ ...g }))}
      />
    </div>
  );
}
