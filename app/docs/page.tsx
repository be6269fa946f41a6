import type { Metadata } from "next";
import Link from "next/link";
import { DocsShell } from "@/components/docs-shell";
import { getGuides } from "@/lib/portal/guides";

// Title and description of the guides index.
export const metadata: Metadata = {
  title: "Guides",
  description:
    "Guides to the Public Catalog API: getting started, keys and scopes, pagination, errors, rate limits, concepts and versioning.",
};

// The list of guides.
export default function GuidesIndex() {
  return (
    <DocsShell current="/docs">
      <h1>Guides</h1>
      <p className="lead">Everything an integrator needs, from the first request to production.</p>
      <ul className="cards">
        {getGuides().map((g) => (
          <li key={g.slug} className="card">
            <h3>
              <Link href={`/docs/${g.slug}`}>{g.title}</Link>
            </h3>
            <p>{g.description}</p>
          </li>
        ))}
      </ul>
    </DocsShell>
  );
}
