import type { Metadata } from "next";
import Link from "next/link";
import { formatTime } from "@/components/console/format";
import { DataTable } from "@/components/data-table";
import { ConsoleError } from "@/lib/console/console-errors";
import { orgRequests, type RequestsQuery } from "@/lib/console/usage";
import { pageRead, pageSession } from "../../page-session";

export const metadata: Metadata = { title: "Request log" };
export const dynamic = "force-dynamic";

const FIELDS = ["requestId", "key", "status", "path", "cursor"] as const;

// The page's URL with these filters (empty ones left out).
function href(base: string, q: Partial<Record<(typeof FIELDS)[number], string | undefined>>): string {
  const s = new URLSearchParams();
  for (const f of FIELDS) if (q[f]) s.set(f, q[f]);
  const text = s.toString();
  return text ? `${base}?${text}` : base;
}

// An organization's request log (owners and admins): its last requests, newest first, searchable by request id and
// filtered by key, status and path prefix, a page at a time; and the requests not logged this hour.
export default async function RequestsPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org: slug } = await params;
  const sp = await searchParams;
  const { db, config, user } = await pageSession(`/console/${slug}/requests`);
  const raw: Record<string, string> = {};
  for (const f of FIELDS) if (typeof sp[f] === "string") raw[f] = sp[f];
  const base = `/console/${encodeURIComponent(slug)}/requests`;
  let log;
  let invalid: string | null = null;
  try {
    log = await pageRead(orgRequests(db, config, user, slug, raw), slug);
  } catch (err) {
    if (err instanceof ConsoleError && err.code === "CONSOLE_FORBIDDEN") {
      return (
        <div className="docs-content">
          <h1>Request log</h1>
          <p className="lead">Only owners and admins of this organization see its request log.</p>
        </div>
      );
    }
    if (!(err instanceof ConsoleError && err.code === "CONSOLE_INVALID")) throw err;
    // A filter that is not valid: said at the top, and the log shown without filters.
    invalid = err.message;
    log = await orgRequests(db, config, user, slug, {});
  }
  const f: RequestsQuery = invalid ? {} : log.filter;
  const filtered = Boolean(f.key || f.status || f.path || f.requestId);
  const keyName = new Map(log.keys.map((k) => [k.id, k.name]));
  const over = log.thisHour?.overRate ?? 0;
  const full = log.thisHour?.queueFull ?? 0;
  return (
    <div className="docs-content">
      <h1>Request log · {log.org.name}</h1>
      <p className="lead">
        The last requests made with this organization&apos;s keys, newest first: at most{" "}
        {log.maxPerOrg.toLocaleString("en")} requests or {log.maxAgeDays} days, and{" "}
        {log.maxPerSecond.toLocaleString("en")} a second. Keys are shown by their prefix; values of parameters
        that look secret are removed. Written every few seconds.
      </p>
      {log.enabled ? null : (
        <p role="status">The request log is off on this server (REQUEST_LOG_ENABLED=false).</p>
      )}
      {invalid ? (
        <p role="alert" className="error-text">
          Filter not applied: {invalid}
        </p>
      ) : null}
      {over > 0 ? (
        <p role="status">
          {over.toLocaleString("en")} requests not logged in this hour: over the rate (
          {log.maxPerSecond.toLocaleString("en")} a second).
        </p>
      ) : null}
      {full > 0 ? (
        <p role="status">
          {full.toLocaleString("en")} requests not logged in this hour: the server&apos;s queue of entries was
          full.
        </p>
      ) : null}
      <form method="get" action={base} className="filter-form" aria-label="Filter the request log">
        <div className="field">
          <label htmlFor="log-request-id">Request id</label>
          <input id="log-request-id" name="requestId" defaultValue={f.requestId ?? ""} size={38} />
        </div>
        <div className="field">
          <label htmlFor="log-key">Key</label>
          <select id="log-key" name="key" defaultValue={f.key ?? ""}>
            <option value="">All keys</option>
            {log.keys.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.prefix}…)
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="log-status">Status</label>
          <input
            id="log-status"
            name="status"
            defaultValue={f.status ?? ""}
            size={6}
            aria-describedby="log-status-help"
          />
          <p id="log-status-help" className="help">
            4xx or 404
          </p>
        </div>
        <div className="field">
          <label htmlFor="log-path">Path starts with</label>
          <input
            id="log-path"
            name="path"
            defaultValue={f.path ?? ""}
            placeholder="/public/v1/products"
            size={24}
          />
        </div>
        <button type="submit" className="primary">
          Filter
        </button>
        {filtered ? <Link href={base}>Clear filters</Link> : null}
      </form>
      {log.entries.length === 0 ? (
        <p>{filtered || f.cursor ? "No request matches these filters." : "No requests logged yet."}</p>
      ) : (
        <DataTable label="Request log">
          <thead>
            <tr>
              <th scope="col">Time (UTC)</th>
              <th scope="col">Key</th>
              <th scope="col">Method</th>
              <th scope="col">Path</th>
              <th scope="col">Status</th>
              <th scope="col">Error code</th>
              <th scope="col">Duration (ms)</th>
              <th scope="col">Request id</th>
            </tr>
          </thead>
          <tbody>
            {log.entries.map((e) => (
              <tr key={e.requestId}>
                <td>
                  <time dateTime={e.at}>
                    {e.at.slice(0, 10)} {e.at.slice(11, 23)}
                  </time>
                </td>
                <td>
                  {keyName.get(e.keyId) ?? ""} <code>{e.keyPrefix}…</code>
                </td>
                <td>{e.method}</td>
                <td>
                  <code>{e.path}</code>
                </td>
                <td>{e.status}</td>
                <td>{e.code ? <code>{e.code}</code> : ""}</td>
                <td>{e.durationMs.toFixed(1)}</td>
                <td>
                  <code>{e.requestId}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </DataTable>
      )}
      {f.cursor || log.next ? (
        <nav aria-label="Request log pages" className="row-actions">
          {f.cursor ? <Link href={href(base, { ...f, cursor: undefined })}>Newest requests</Link> : null}{" "}
          {log.next ? <Link href={href(base, { ...f, cursor: log.next })}>Older requests</Link> : null}
        </nav>
      ) : null}
      {log.drops.length > 0 ? (
        <details>
          <summary>Requests not logged in the last 24 hours</summary>
          <DataTable label="Requests not logged per hour">
            <thead>
              <tr>
                <th scope="col">Hour (UTC)</th>
                <th scope="col">Over the rate</th>
                <th scope="col">Queue full</th>
              </tr>
            </thead>
            <tbody>
              {log.drops.map((d) => (
                <tr key={d.hour}>
                  <td>{formatTime(d.hour)}</td>
                  <td>{d.overRate}</td>
                  <td>{d.queueFull}</td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        </details>
      ) : null}
    </div>
  );
}
