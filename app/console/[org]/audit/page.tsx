import type { Metadata } from "next";
import Link from "next/link";
import { formatTime } from "@/components/console/format";
import { DataTable } from "@/components/data-table";
import { listOrgAudit } from "@/lib/console/audit-log";
import { AUDIT_ACTIONS, AUDIT_ACTION_FAMILIES, type AuditAction } from "@/lib/audit/record";
import { ConsoleError } from "@/lib/console/console-errors";
import { pageRead, pageSession } from "../../page-session";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

// What each action of an organization's log says, after its actor.
const ACTIONS: Record<AuditAction, string> = {
  "api_key.created": "created the key",
  "api_key.rolled": "rolled the key",
  "api_key.revoked": "revoked the key",
  "changelog.created": "created a changelog entry",
  "changelog.edited": "edited a changelog entry",
  "changelog.published": "published a changelog entry",
  "changelog.unpublished": "unpublished a changelog entry",
  "changelog.promoted": "promoted a changelog entry",
  "account.signed_out_everywhere": "signed out everywhere",
  "account.session_signed_out": "signed out one of their sessions",
  "webhook_endpoint.created": "registered a webhook endpoint",
  "webhook_endpoint.updated": "changed a webhook endpoint",
  "webhook_endpoint.deleted": "deleted a webhook endpoint",
  "webhook_endpoint.secret_rolled": "rolled a webhook endpoint's secret",
  "webhook_endpoint.disabled": "disabled a webhook endpoint",
  "webhook_endpoint.replayed": "replayed a webhook endpoint from a cursor",
  "webhook_delivery.redelivered": "redelivered a webhook event",
  "webhook_endpoint.test_sent": "sent a test event",
  "member.invited": "invited a member",
  "member.invitation_revoked": "revoked an invitation",
  "member.joined": "joined the organization",
  "member.role_changed": "changed a member's role",
  "member.removed": "removed a member",
  "member.left": "left the organization",
  "account.password_changed": "changed their password",
  "account.password_reset_issued": "issued a password reset link",
  "account.password_reset": "reset their password",
  "account.two_factor_enabled": "turned on two-factor sign-in",
  "account.two_factor_disabled": "turned off two-factor sign-in",
  "account.recovery_code_used": "signed in with a recovery code",
  "account.recovery_codes_regenerated": "made new recovery codes",
  "org.two_factor_required": "required two-factor sign-in",
  "org.two_factor_not_required": "stopped requiring two-factor sign-in",
};

// The families of actions, as the filter offers them.
const FAMILIES: Record<string, string> = {
  "api_key.": "Every action on API keys",
  "member.": "Every action on members",
  "account.": "Every action on accounts",
  "org.": "Every change to the organization's settings",
  "webhook_endpoint.": "Every action on webhook endpoints",
  "webhook_delivery.": "Every action on webhook deliveries",
  "changelog.": "Every action on the changelog",
};

type Search = Record<string, string | string[] | undefined>;

// An organization's audit log (owners and admins): who did what to which target, when; newest first, filtered by
// actor, action and days, a page at a time, downloadable as CSV.
export default async function AuditPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Search>;
}) {
  const { org: slug } = await params;
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) {
    const one = Array.isArray(v) ? v[0] : v;
    if (one !== undefined && one !== "") search.set(k, one);
  }
  const { db, user } = await pageSession(`/console/${slug}/audit`);
  let audit;
  let invalid: string | null = null;
  try {
    audit = await pageRead(listOrgAudit(db, user, slug, search), slug);
  } catch (err) {
    if (err instanceof ConsoleError && err.code === "CONSOLE_FORBIDDEN") {
      return (
        <div className="docs-content">
          <h1>Audit log</h1>
          <p className="lead">Only owners and admins of this organization see its audit log.</p>
        </div>
      );
    }
    if (!(err instanceof ConsoleError && err.code === "CONSOLE_INVALID")) throw err;
    // A filter the log cannot take (a hand-edited address): said above the log's first page.
    invalid = err.message;
    audit = await listOrgAudit(db, user, slug);
  }
  const base = `/console/${encodeURIComponent(audit.org.slug)}/audit`;
  const filters = new URLSearchParams([...search].filter(([k]) => k !== "before" && !invalid));
  const csv = `/api/console/orgs/${encodeURIComponent(audit.org.slug)}/audit/csv${filters.size ? `?${filters}` : ""}`;
  const filtered = filters.size > 0;
  const nextPage = audit.next ? `${base}?${new URLSearchParams([...filters, ["before", audit.next]])}` : null;
  const value = (k: string) => (invalid ? "" : (search.get(k) ?? ""));
  return (
    <div className="docs-content">
      <h1>Audit log · {audit.org.name}</h1>
      <p className="lead">
        Every change to this organization&apos;s API keys, members, settings and webhooks, newest first.
      </p>
      {invalid ? (
        <p className="field-error" role="alert">
          {invalid}
        </p>
      ) : null}
      <form
        method="get"
        action={base}
        className="console-form audit-filters"
        aria-label="Filter the audit log"
      >
        <div className="field">
          <label htmlFor="audit-actor">Who</label>
          <select id="audit-actor" name="actor" defaultValue={value("actor")}>
            <option value="">Anyone</option>
            {audit.actors.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-action">What</label>
          <select id="audit-action" name="action" defaultValue={value("action")}>
            <option value="">Any action</option>
            <optgroup label="Families">
              {AUDIT_ACTION_FAMILIES.map((f) => (
                <option key={f} value={f}>
                  {FAMILIES[f] ?? f}
                </option>
              ))}
            </optgroup>
            <optgroup label="Actions">
              {AUDIT_ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </optgroup>
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-from">From (UTC)</label>
          <input id="audit-from" name="from" type="date" defaultValue={value("from")} />
        </div>
        <div className="field">
          <label htmlFor="audit-to">To (UTC, inclusive)</label>
          <input id="audit-to" name="to" type="date" defaultValue={value("to")} />
        </div>
        <div className="actions">
          <button type="submit">Filter</button>
          {filtered ? <Link href={base}>Clear the filters</Link> : null}
          <a href={csv} download>
            Download as CSV
          </a>
        </div>
      </form>
      {audit.events.length === 0 ? (
        <p>{filtered ? "Nothing recorded matches these filters." : "Nothing recorded yet."}</p>
      ) : (
        <DataTable label="Audit log">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Target</th>
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
                  <td>{ACTIONS[e.action as AuditAction] ?? e.action}</td>
                  <td>
                    {typeof d.name === "string" ? d.name : ""}{" "}
                    {typeof d.prefix === "string" ? <code>{d.prefix}…</code> : null}
                    {typeof d.email === "string" ? d.email : null}
                    {typeof d.url === "string" ? <code>{d.url}</code> : null}
                  </td>
                  <td>{describe(e.action, d)}</td>
                </tr>
              );
            })}
          </tbody>
        </DataTable>
      )}
      <nav aria-label="Pages of the audit log" className="row-actions">
        {search.has("before") ? <Link href={filters.size ? `${base}?${filters}` : base}>Newest</Link> : null}
        {nextPage ? <Link href={nextPage}>Older</Link> : null}
      </nav>
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
  if (action === "member.role_changed") return `${String(d.from)} → ${String(d.to ?? d.role)}`;
  if (typeof d.role === "string") return `role ${d.role}`;
  return "";
}
