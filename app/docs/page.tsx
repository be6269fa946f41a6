import type { Metadata } from "next";
import { DocsShell } from "@/components/docs-shell";
import { GuideCards } from "@/components/guide-cards";

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
      <GuideCards />
    </DocsShell>
  );
}
