import type { Metadata } from "next";
import { previewOn } from "@/lib/preview";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import Link from "next/link";
import { KeysManager } from "@/components/console/keys-manager";
import { ConsoleError } from "@/lib/console/console-errors";
import { csrfTokenFor } from "@/lib/console/http";
import { GRACE_OPTIONS, keyScopeChoices, listOrgKeys } from "@/lib/console/keys";
import { getConsoleUser } from "@/lib/console/session";
import { getRuntime } from "@/lib/runtime";

export const metadata: Metadata = { title: "API keys" };
export const dynamic = "force-dynamic";

// An organization's API keys: the list for every member; create, roll and revoke for owners and admins.
export default async function KeysPage({ params }: { params: Promise<{ org: string }> }) {
  const { org: slug } = await params;
  const rt = getRuntime();
  const requestHeaders = await headers();
  const user = await getConsoleUser(requestHeaders, rt);
  if (!user) redirect(`/console/sign-in?callbackUrl=${encodeURIComponent(`/console/${slug}/keys`)}`);
  const listed = await listOrgKeys(rt, user, slug).catch((err: unknown) => {
    if (err instanceof ConsoleError && err.status === 404) notFound();
    // The organization requires two-factor sign-in and this session does not meet it (also on a client-side
    // navigation, which does not run the layout's redirect again).
    if (err instanceof ConsoleError && err.code === "CONSOLE_TWO_FACTOR_REQUIRED")
      redirect(`/console/account?required=${encodeURIComponent(slug)}`);
    throw err;
  });
  return (
    <div className="docs-content">
      <h1>API keys · {listed.org.name}</h1>
      <p className="lead">
        Keys give read access to this organization&apos;s catalog through the public API
        {previewOn("writes", rt.config) ? " (and, with products:write, product creation: write preview)" : ""}
        .{" "}
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
        csrfToken={listed.canManage ? csrfTokenFor(rt.config, user.id, requestHeaders) : ""}
        scopes={keyScopeChoices(rt.config)}
        graceOptions={GRACE_OPTIONS.map((g) => ({ ...g }))}
      />
    </div>
  );
}
