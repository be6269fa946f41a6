import type { Metadata } from "next";
import Link from "next/link";
import { UsageChart, type ChartSeries } from "@/components/console/usage-chart";
import { ConsoleError } from "@/lib/console/console-errors";
import { USAGE_DAYS, orgUsage, type UsageFigures } from "@/lib/console/usage";
import { pageRead, pageSession } from "../../page-session";

export const metadata: Metadata = { title: "Usage" };
export const dynamic = "force-dynamic";

const HOUR_MS = 3_600_000;

// The status classes as the charts stack them (the 429s apart from the other 4xx, so that the stack is the total).
const CLASSES: ChartSeries[] = [
  { label: "2xx", className: "chart-2xx" },
  { label: "3xx", className: "chart-3xx" },
  { label: "4xx (not 429)", className: "chart-4xx" },
  { label: "429", className: "chart-429" },
  { label: "5xx", className: "chart-5xx" },
];
const LATENCY: ChartSeries[] = [
  { label: "p50 (ms)", className: "chart-2xx" },
  { label: "p95 (ms)", className: "chart-5xx" },
];

const classValues = (p: UsageFigures) => [p.c2xx, p.c3xx, p.c4xx - p.c429, p.c429, p.c5xx];
const ms = (v: number | null) => (v === null ? "—" : v < 10 ? v.toFixed(2) : v.toFixed(1));
const day = (t: number) => new Date(t).toISOString().slice(5, 10);
const hour = (t: number) => new Date(t).toISOString().slice(5, 13).replace("T", " ") + ":00";

// An organization's usage (owners and admins): requests per day and per hour by status class, 429s apart, and the
// latency percentiles, over the last 30 days, for all keys or one.
export default async function UsagePage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org: slug } = await params;
  const sp = await searchParams;
  const { db, user } = await pageSession(`/console/${slug}/usage`);
  const query: Record<string, string> = {};
  if (typeof sp.key === "string") query.key = sp.key;
  let usage;
  try {
    usage = await pageRead(orgUsage(db, user, slug, query), slug);
  } catch (err) {
    if (err instanceof ConsoleError && err.code === "CONSOLE_FORBIDDEN") {
      return (
        <div className="docs-content">
          <h1>Usage</h1>
          <p className="lead">Only owners and admins of this organization see its usage.</p>
        </div>
      );
    }
    if (err instanceof ConsoleError && err.code === "CONSOLE_INVALID") {
      return (
        <div className="docs-content">
          <h1>Usage</h1>
          <p className="lead" role="alert">
            That key is not one of this organization&apos;s.{" "}
            <Link href={`/console/${encodeURIComponent(slug)}/usage`}>Show all keys</Link>.
          </p>
        </div>
      );
    }
    throw err;
  }
  const who = usage.key ? `key ${usage.key.name} (${usage.key.prefix}…)` : "all keys";
  const t = usage.total;
  const requests = t.c2xx + t.c3xx + t.c4xx + t.c5xx;
  // Every hour of the window for the chart (zeros where none); the table lists the hours with requests.
  const byHour = new Map(usage.hours.map((h) => [h.t, h]));
  const hourPoints = [];
  for (let h = usage.from; h <= usage.to; h += HOUR_MS) {
    const p = byHour.get(h);
    hourPoints.push({ t: h, values: p ? classValues(p) : [0, 0, 0, 0, 0] });
  }
  const base = `/console/${encodeURIComponent(usage.org.slug)}`;
  return (
    <div className="docs-content">
      <h1>Usage · {usage.org.name}</h1>
      <p className="lead">
        Requests to the public API over the last {USAGE_DAYS} days (UTC), {who}. Written every few seconds;
        each request is in the <Link href={`${base}/requests`}>request log</Link> too.
      </p>
      <form method="get" className="filter-form" aria-label="Choose a key">
        <div className="field">
          <label htmlFor="usage-key">Key</label>
          <select id="usage-key" name="key" defaultValue={usage.key?.id ?? ""}>
            <option value="">All keys</option>
            {usage.keys.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name} ({k.prefix}…){k.status === "active" ? "" : ` · ${k.status}`}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary">
          Show
        </button>
      </form>
      <h2>Last {USAGE_DAYS} days</h2>
      {requests === 0 ? <p>No requests in the last {USAGE_DAYS} days.</p> : null}
      <dl className="usage-totals">
        <div>
          <dt>Requests</dt>
          <dd>{requests}</dd>
        </div>
        <div>
          <dt>2xx</dt>
          <dd>{t.c2xx}</dd>
        </div>
        <div>
          <dt>3xx</dt>
          <dd>{t.c3xx}</dd>
        </div>
        <div>
          <dt>4xx</dt>
          <dd>{t.c4xx}</dd>
        </div>
        <div>
          <dt>of which 429</dt>
          <dd>{t.c429}</dd>
        </div>
        <div>
          <dt>5xx</dt>
          <dd>{t.c5xx}</dd>
        </div>
        <div>
          <dt>p50 latency</dt>
          <dd>{ms(t.p50)} ms</dd>
        </div>
        <div>
          <dt>p95 latency</dt>
          <dd>{ms(t.p95)} ms</dd>
        </div>
      </dl>
      <UsageChart
        id="usage-days"
        kind="bars"
        title="Requests per day by status class"
        desc={`Stacked bars, one per day of the last ${USAGE_DAYS} days: ${requests} requests, ${t.c429} of them 429. The table below lists every day.`}
        series={CLASSES}
        points={usage.days.map((d) => ({ t: d.t, values: classValues(d) }))}
        periodLabel={day}
        tickEvery={5}
        tableCaption="Requests per day"
      />
      <UsageChart
        id="usage-hours"
        kind="bars"
        title="Requests per hour by status class"
        desc={`Stacked bars, one per hour of the last ${USAGE_DAYS} days. The table below lists the hours with requests.`}
        series={CLASSES}
        points={hourPoints}
        periodLabel={hour}
        tickEvery={24 * 5}
        tableCaption="Requests per hour"
        tableRows={usage.hours.map((h) => ({ t: h.t, values: classValues(h) }))}
      />
      <UsageChart
        id="usage-latency"
        kind="lines"
        title="Latency per day, p50 and p95"
        desc="Two lines, in milliseconds, from the server's receipt of a request to its answer; days without requests are gaps. The table below lists every day."
        series={LATENCY}
        points={usage.days.map((d) => ({ t: d.t, values: [d.p50, d.p95] }))}
        periodLabel={day}
        tickEvery={5}
        unit="ms"
        tableCaption="Latency per day"
        format={ms}
      />
    </div>
  );
}
