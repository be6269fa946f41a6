import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import Link from "next/link";
import { MIRRORED } from "@/lib/catalog/resources/items";
import { ConsoleError } from "@/lib/console/console-errors";
import { csrfTokenFor } from "@/lib/console/http";
import { getConsoleUser } from "@/lib/console/session";
import { listOrgWebhooks } from "@/lib/console/webhooks";
import { WEBHOOK_OPS } from "@/lib/webhooks/endpoints";
import { getRuntime } from "@/lib/runtime";
import { WebhooksManager } from "./webhooks-manager";

export const metadata: Metadata = { title: "Webhooks" };
export const dynamic = "force-dynamic";

// An organization's webhook endpoints (preview `webhooks`): the list and each endpoint's deliveries for every member;
// register, change, roll a secret, test, redeliver and replay for owners and admins. Off: not found.
export default async function WebhooksPage({ params }: { params: Promise<{ org: string }> }) {
  const { org: slug } = await params;
  const rt = getRuntime();
  const requestHeaders = await headers();
  const user = await getConsoleUser(requestHeaders, rt);
  if (!user) redirect(`/console/sign-in?callbackUrl=${encodeURIComponent(`/console/${slug}/webhooks`)}`);
  const listed = await listOrgWebhooks(rt, user, slug).catch((err: unknown) => {
    if (err instanceof ConsoleError && err.status === 404) notFound();
    // The organization requires two-factor sign-in and this session does not meet it (also on a client-side
    // navigation, which does not run the layout's redirect again).
    if (err instanceof ConsoleError && err.code === "CONSOLE_TWO_FACTOR_REQUIRED")
      redirect(`/console/account?required=${encodeURIComponent(slug)}`);
    throw err;
  });
  const org = encodeURIComponent(listed.org.slug);
  return (
    <div className="docs-content">
      <h1>Webhooks · {listed.org.name}</h1>
      <p className="lead">
        Each change of this organization&apos;s catalog (the change feed&apos;s events) is POSTed to your
        endpoints, signed as Standard Webhooks says, retried for more than 24 hours (preview feature). See
        also the <Link href={`/console/${org}/keys`}>API keys</Link>
        {listed.canManage ? (
          <>
            {" "}
            and the <Link href={`/console/${org}/audit`}>audit log</Link>, where every change is recorded.
          </>
        ) : (
          ". Owners and admins register and change endpoints."
        )}
      </p>
      <WebhooksManager
        org={listed.org.slug}
        endpoints={listed.endpoints}
        canManage={listed.canManage}
        csrfToken={listed.canManage ? csrfTokenFor(rt.config, user.id, requestHeaders) : ""}
        types={[...MIRRORED]}
        ops={[...WEBHOOK_OPS]}
      />
    </div>
  );
}
