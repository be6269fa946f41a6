import type { Metadata } from "next";
import Link from "next/link";
import { MIRRORED } from "@/lib/catalog/resources/items";
import { listOrgWebhooks } from "@/lib/console/webhooks";
import { WEBHOOK_OPS } from "@/lib/webhooks/endpoints";
import { WebhooksManager } from "@/components/console/webhooks-manager";
import { pageRead, pageSession } from "../../page-session";

export const metadata: Metadata = { title: "Webhooks" };
export const dynamic = "force-dynamic";

// An organization's webhook endpoints (preview `webhooks`): the list and each endpoint's deliveries for every member;
// register, change, roll a secret, test, redeliver and replay for owners and admins. Off: not found.
export default async function WebhooksPage({ params }: { params: Promise<{ org: string }> }) {
  const { org: slug } = await params;
  const { db, config, user, csrfToken } = await pageSession(`/console/${slug}/webhooks`);
  const listed = await pageRead(listOrgWebhooks(db, config, user, slug), slug);
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
        csrfToken={listed.canManage ? csrfToken : ""}
        types={[...MIRRORED]}
        ops={[...WEBHOOK_OPS]}
      />
    </div>
  );
}
