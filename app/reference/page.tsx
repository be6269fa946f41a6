import type { Metadata } from "next";
import Link from "next/link";
import { DocsShell } from "@/components/docs-shell";
import { JsonBlock } from "@/components/json-block";
import { InlineMarkdown } from "@/components/markdown";
import { FieldsTable } from "@/components/reference/fields-table";
import { ParamsTable } from "@/components/reference/params-table";
import { getConfig } from "@/lib/config";
import { getOpenApiDocument, getReferenceEndpoints, getReferenceWebhooks } from "@/lib/portal/reference";
import { previewOn } from "@/lib/preview";

// Title and description of the reference overview.
export const metadata: Metadata = {
  title: "API reference",
  description:
    "Every endpoint of the Public Catalog API V1 with its scope, parameters, responses and errors, generated from the OpenAPI document.",
};

// The reference overview: every endpoint with its required scope.
export default function ReferenceIndex() {
  const doc = getOpenApiDocument() as { info: { version: string } };
  const endpoints = getReferenceEndpoints();
  const writes = endpoints.flatMap((e) => e.writes.map((w) => ({ ...w, slug: e.slug })));
  // Preview `details` is on: its reads are listed, marked Preview. The change feed's page and the export's say
  // themselves what they are.
  const details = previewOn("details", getConfig());
  const feed = endpoints.find((e) => e.preview && e.pageFields.length > 0);
  const exported = endpoints.find((e) => e.stream);
  // Preview `webhooks` is on: what this server POSTs to an integrator's endpoint, from the document's `webhooks`.
  const webhooks = getReferenceWebhooks();
  return (
    <DocsShell current="/reference">
      <h1>API reference</h1>
      <p className="lead">
        Version {doc.info.version} · generated from the OpenAPI 3.1 document at{" "}
        <a href="/public/v1/openapi.json">
          <code>/public/v1/openapi.json</code>
        </a>
        .
      </p>
      <table aria-label="Endpoints">
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Required scope</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((e) => (
            <tr key={e.slug} data-testid={`endpoint-${e.slug}`}>
              <td>
                <Link href={`/reference/${e.slug}`}>
                  <span className="method">GET</span> <code>{e.path}</code>
                </Link>
                {e.preview ? (
                  <>
                    {" "}
                    <span className="tag changed">Preview</span>
                  </>
                ) : null}
              </td>
              <td>
                <span className="scope-badge">{e.scope}</span>
              </td>
              <td>{e.summary}</td>
            </tr>
          ))}
          {writes.map((w) => (
            <tr key={w.operationId} data-testid={`operation-${w.anchor}`}>
              <td>
                <Link href={`/reference/${w.slug}#${w.anchor}`}>
                  <span className="method">{w.method}</span> <code>{w.path}</code>
                </Link>{" "}
                {w.preview ? <span className="tag changed">Preview</span> : null}
              </td>
              <td>
                <span className="scope-badge">{w.scope}</span>
              </td>
              <td>{w.summary}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Common to every endpoint</h2>
      <ul>
        <li>
          Authentication: <code>Authorization: Bearer &lt;API_KEY&gt;</code> (see{" "}
          <Link href="/docs/authentication">keys and scopes</Link>).
        </li>
        <li>
          Answer: <code>{"{ data: [...], pagination: { page, perPage, total, totalPages, hasAny } }"}</code>{" "}
          (see <Link href="/docs/pagination">pagination</Link>).
        </li>
        <li>
          Errors: <code>{"{ statusCode, message, error, code, requestId }"}</code> (see{" "}
          <Link href="/docs/errors">errors</Link> and <Link href="/docs/rate-limits">rate limits</Link>).
        </li>
        {feed ? (
          <li>
            In preview on this server: <Link href={`/reference/${feed.slug}`}>the change feed</Link>, every
            change of the catalog in order, from a cursor.
          </li>
        ) : null}
        {writes.length > 0 ? (
          <li>
            In preview on this server: <code>POST /public/v1/products</code> (scope{" "}
            <code>products:write</code>; see <Link href="/docs/creating-products">creating products</Link>)
            and the reads marked Preview above (see{" "}
            <Link href="/docs/reading-whole-products">reading whole products</Link>).
          </li>
        ) : details ? (
          <li>
            In preview on this server: the reads marked Preview above (see{" "}
            <Link href="/docs/reading-whole-products">reading whole products</Link>). Not available in V1:{" "}
            <code>POST /public/v1/products</code> (see the <Link href="/docs/versioning">roadmap</Link>).
          </li>
        ) : (
          <li>
            Not available in V1: <code>GET /public/v1/products/{"{id}"}</code>,{" "}
            <code>POST /public/v1/products</code>, <code>GET /public/v1/channels</code> (see the{" "}
            <Link href="/docs/versioning">roadmap</Link>).
          </li>
        )}
        {exported ? (
          <li>
            In preview on this server:{" "}
            <Link href={`/reference/${exported.slug}`}>
              <code>GET {exported.path}</code>
            </Link>
            , a whole resource as NDJSON from one snapshot, its last line the change feed&apos;s cursor.
          </li>
        ) : null}
      </ul>
      {webhooks.map((w) => (
        <section key={w.name} id={`webhook-${w.name}`} data-testid={`webhook-${w.name}`}>
          <h2>
            Webhook <code>{w.name}</code> {w.preview ? <span className="tag changed">Preview</span> : null}
          </h2>
          <p>
            <span className="method">POST</span> to your endpoint: <InlineMarkdown source={w.description} />{" "}
            See the <Link href="/docs/webhooks">webhooks guide</Link>.
          </p>
          <h3>Headers</h3>
          <ParamsTable params={w.headers} label={`Headers of the webhook ${w.name}`} />
          <h3>
            Body: <code>{w.bodySchemaName}</code>
          </h3>
          <FieldsTable fields={w.bodyFields} label={`Body of the webhook ${w.name}`} />
          <JsonBlock value={w.example} title="Example body" />
        </section>
      ))}
    </DocsShell>
  );
}
