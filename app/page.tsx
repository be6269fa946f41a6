import type { Metadata } from "next";
import Link from "next/link";
import { CodeTabs } from "@/components/code-tabs";
import { GuideCards } from "@/components/guide-cards";
import { JsonBlock } from "@/components/json-block";
import { getConfig } from "@/lib/config";
import { SAMPLE_LANGUAGES, allSamples } from "@/lib/portal/code-samples";
import { CONSOLE_PATH, KEYS_PLACE } from "@/lib/portal/console-keys";
import { getReferenceEndpoints } from "@/lib/portal/reference";

// Title and description of the landing page.
export const metadata: Metadata = {
  title: { absolute: "Public Catalog API — read your product catalog over HTTP" },
  description:
    "A read-only HTTP/JSON API over your organization's products, families, attributes, categories and media. Get a key and make your first request in a minute.",
};

// Landing page: what the API is, a first request in a minute, links to everything.
export default function Home() {
  const { baseUrl } = getConfig();
  const endpoints = getReferenceEndpoints();
  const products = endpoints.find((e) => e.slug === "products") ?? endpoints[0]!;
  const samples = allSamples({
    baseUrl,
    path: products.path,
    query: [["perPage", "5"]],
    key: "$PCA_API_KEY",
  });
  return (
    <>
      <section className="hero">
        <h1>Your product catalog, over HTTP.</h1>
        <p>
          The Public Catalog API is a read-only JSON API over the catalog of one organization: products,
          families, attributes, categories and media. One key, scoped and bound to your organization;
          predictable pagination, search and filters; errors you can branch on.
        </p>
        <div className="cta">
          <Link className="button-link primary" href="/docs/getting-started">
            Get started
          </Link>
          <Link className="button-link" href="/reference">
            API reference
          </Link>
          <Link className="button-link" href="/changelog">
            Changelog
          </Link>
        </div>
      </section>

      <section aria-labelledby="first-request">
        <h2 id="first-request">A first request in a minute</h2>
        <div className="steps">
          <div>
            <ol>
              <li>
                <strong>Get a key.</strong> An owner or admin of your organization creates one in{" "}
                <Link href={CONSOLE_PATH}>{KEYS_PLACE}</Link>. It is shown once; keep it secret.
              </li>
              <li>
                <strong>Export it</strong> in your shell: <code>export PCA_API_KEY=&apos;pca_…&apos;</code>
              </li>
              <li>
                <strong>Call the API.</strong> Every request sends{" "}
                <code>Authorization: Bearer &lt;key&gt;</code>.
              </li>
              <li>
                <strong>Or try it in the browser</strong> on any{" "}
                <Link href={`/reference/${products.slug}`}>reference page</Link>.
              </li>
            </ol>
            <CodeTabs
              title="First request"
              tabs={SAMPLE_LANGUAGES.map((l) => ({ id: l.id, label: l.label, code: samples[l.id] }))}
            />
          </div>
          <JsonBlock title="Answer (200)" value={products.exampleResponse} />
        </div>
      </section>

      <section aria-labelledby="endpoints">
        <h2 id="endpoints">Endpoints</h2>
        <ul className="cards">
          {endpoints.map((e) => (
            <li key={e.slug} className="card">
              <h3>
                <Link href={`/reference/${e.slug}`}>
                  <span className="method">GET</span> <code>{e.path}</code>
                </Link>
              </h3>
              <p>{e.summary}</p>
              <p>
                Scope <span className="scope-badge">{e.scope}</span>
              </p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="guides">
        <h2 id="guides">Guides</h2>
        <GuideCards />
      </section>
    </>
  );
}
