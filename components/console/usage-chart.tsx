// A usage chart drawn on the server as SVG (no chart library: a few rects and polylines, no script sent), named for
// assistive technology by its title and description, with the same figures in a table behind it (<details>).
import type { ReactNode } from "react";
import { DataTable } from "@/components/data-table";

// One series of a chart: its name (legend, table header) and its CSS class (the colour, app/globals.css).
export interface ChartSeries {
  label: string;
  className: string;
}

// One point of a chart: its period's start and one value per series (null: none, a line's gap).
export interface ChartPoint {
  t: number;
  values: (number | null)[];
}

const WIDTH = 720;
const HEIGHT = 200;
const LEFT = 52;
const BOTTOM = 22;
const TOP = 8;

// The highest round number at or above a value, for the y axis (1, 2, 5 × 10^n).
export function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

// A chart of stacked bars (requests by class) or of lines (latency percentiles) over periods, with its legend and its
// table. `tableRows`: which points the table lists (all by default; the hourly chart lists hours with requests).
export function UsageChart(props: {
  id: string;
  title: string;
  desc: string;
  kind: "bars" | "lines";
  series: ChartSeries[];
  points: ChartPoint[];
  periodLabel: (t: number) => string;
  /** Labels under the x axis: every n-th point. */
  tickEvery: number;
  unit?: string;
  tableCaption: string;
  tableRows?: ChartPoint[];
  format?: (v: number | null) => string;
}) {
  const { id, points, series } = props;
  const fmt = props.format ?? ((v: number | null) => (v === null ? "—" : String(v)));
  const plotW = WIDTH - LEFT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = points.length > 0 ? plotW / points.length : plotW;
  const top =
    props.kind === "bars"
      ? Math.max(0, ...points.map((p) => p.values.reduce<number>((s, v) => s + (v ?? 0), 0)))
      : Math.max(0, ...points.flatMap((p) => p.values.map((v) => v ?? 0)));
  const max = niceMax(top);
  const y = (v: number) => TOP + plotH - (v / max) * plotH;
  const shapes: ReactNode[] = [];
  if (props.kind === "bars") {
    points.forEach((p, i) => {
      let base = 0;
      p.values.forEach((v, s) => {
        if (!v) return;
        const x = LEFT + i * slot + (slot > 4 ? slot * 0.1 : 0);
        const w = slot > 4 ? slot * 0.8 : slot;
        shapes.push(
          <rect
            key={`${i}-${s}`}
            className={series[s]!.className}
            x={x.toFixed(2)}
            y={y(base + v).toFixed(2)}
            width={w.toFixed(2)}
            height={Math.max(0.5, (v / max) * plotH).toFixed(2)}
          />,
        );
        base += v;
      });
    });
  } else {
    series.forEach((s, si) => {
      const pts = points
        .map((p, i) =>
          p.values[si] == null
            ? null
            : `${(LEFT + (i + 0.5) * slot).toFixed(1)},${y(p.values[si]!).toFixed(1)}`,
        )
        .filter((v): v is string => v !== null);
      if (pts.length > 0)
        shapes.push(
          <polyline key={s.label} className={`chart-line ${s.className}`} points={pts.join(" ")} />,
        );
    });
  }
  const ticks = points.filter((_, i) => i % props.tickEvery === 0);
  const rows = props.tableRows ?? points;
  return (
    <figure className="usage-figure">
      <svg
        className="usage-chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
      >
        <title id={`${id}-title`}>{props.title}</title>
        <desc id={`${id}-desc`}>{props.desc}</desc>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line className="chart-grid" x1={LEFT} x2={WIDTH} y1={y(max * f)} y2={y(max * f)} />
            <text className="chart-label" x={LEFT - 4} y={y(max * f) + 4} textAnchor="end">
              {fmtAxis(max * f)}
              {props.unit && f === 1 ? ` ${props.unit}` : ""}
            </text>
          </g>
        ))}
        {shapes}
        {ticks.map((p) => (
          <text
            key={p.t}
            className="chart-label"
            x={LEFT + points.indexOf(p) * slot}
            y={HEIGHT - 6}
            textAnchor="start"
          >
            {props.periodLabel(p.t)}
          </text>
        ))}
      </svg>
      <figcaption>
        <strong>{props.title}</strong>{" "}
        <span className="chart-legend">
          {series.map((s) => (
            <span key={s.label} className="chart-legend-item">
              <svg width="12" height="12" aria-hidden="true" focusable="false">
                <rect width="12" height="12" className={s.className} />
              </svg>{" "}
              {s.label}
            </span>
          ))}
        </span>
      </figcaption>
      <details>
        <summary>{props.tableCaption} (table)</summary>
        {rows.length === 0 ? (
          <p>No requests in this period.</p>
        ) : (
          <DataTable label={props.tableCaption}>
            <thead>
              <tr>
                <th scope="col">Period (UTC)</th>
                {series.map((s) => (
                  <th scope="col" key={s.label}>
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.t}>
                  <th scope="row">{props.periodLabel(p.t)}</th>
                  {p.values.map((v, i) => (
                    <td key={i}>{fmt(v)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
      </details>
    </figure>
  );
}

function fmtAxis(v: number): string {
  if (v >= 1_000_000) return `${+(v / 1_000_000).toFixed(1)}M`;
  if (v >= 1000) return `${+(v / 1000).toFixed(1)}k`;
  return String(+v.toFixed(1));
}
