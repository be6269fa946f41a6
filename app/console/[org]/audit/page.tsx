import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import Link from "next/link";
import { formatTime } from "@/components/console/format";
import { DataTable } from "@/components/data-table";
import { ConsoleError } from "@/lib/console/console-errors";
import { listOrgAudit } from "@/lib/console/keys";
import { getConsoleUser } from "@/lib/console/session";
import { getRuntime } from "@/lib/runtime";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

const ACTIONS: Record<string, string> = {
  "api_key.created": "created the key",
  "api_key.rolled": "rolled the key",
  "api_key.revoked": "revoked the key",
};

// An organization's audit log (owners and admins): who did what to which key, when; newest first.
export default async function AuditPage({ params }: { params: Promise<{ org: string }> }) {
  const { org: slug } = await params;
  const rt = getRuntime();
  const user = await getConsoleUser(await headers(), rt);
  if (!user) redirect(`/console/sign-in?callbackUrl=${encodeURIComponent(`/console/${slug}/audit`)}`);
  let audit;
  try {
    audit = await listOrgAudit(rt, user, slug);
  } catch (err) {
    if (err instanceof ConsoleError && err.status === 404) notFound();
    // The organization requires two-factor sign-in and this session does not meet it (also on a client-side
    // navigation, which does not run the layout's redirect again).
    if (err instanceof ConsoleError && err.code === "CONSOLE_TWO_FACTOR_REQUIRED")
      redirect(`/console/account?required=${encodeURIComponent(slug)}`);
    if (err instanceof ConsoleError && err.code === "CONSOLE_FORBIDDEN") {
      return (
        <div className="docs-content">
          <h1>Audit log</h1>
          <p className="lead">Only owners and admins of this organization see its audit log.</p>
        </div>
      );
    }
    throw err;
  }
  const keysPage = `/console/${encodeURIComponent(audit.org.slug)}/keys`;
  return (
    <div className="docs-content">
      <h1>Audit log · {audit.org.name}</h1>
      <p className="lead">
        Every change to this organization&apos;s <Link href={keysPage}>API keys</Link>, newest first.
      </p>
      {audit.events.length === 0 ? (
        <p>Nothing recorded yet.</p>
      ) : (
        <DataTable label="Audit log">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Key</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {audit.events.map((e) => {
              const d = e.details as Record<string, unknown>;
              return (
                <tr key={e.id}>
                  <td>
                    <time dateTime={e.createdAt}>{formatTime(e.createdAt)}</time>
                  </td>
                  <td>{e.actorEmail}</td>
                  <td>{ACTIONS[e.action] ?? e.action}</td>
                  <td>
                    {typeof d.name === "string" ? d.name : ""}{" "}
                    {typeof d.prefix === "string" ? <code>{d.prefix}…</code> : null}
                  </td>
                  <td>{describe(e.action, d)}</td>
                </tr>
              );
            })}
          </tbody>
        </DataTable>
      )}
    </div>
  );
}

function describe(action: string, d: Record<string, unknown>): string {
  if (action === "api_key.created") {
    const scopes = Array.isArray(d.scopes) ? d.scopes.join(", ") : "";
    return `${scopes}${typeof d.expiresAt === "string" ? ` · expires ${formatTime(d.expiresAt)}` : ""}`;
  }
  if (action === "api_key.rolled") {
    const grace = typeof d.graceSeconds === "number" ? d.graceSeconds : 0;
    const until = grace === 0 ? "stopped at once" : `works until ${formatTime(String(d.expiresAt))}`;
    return `new key ${typeof d.newPrefix === "string" ? `${d.newPrefix}…` : ""}; old key ${until}`;
  }
  return "";
}
