import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AllowedValues } from "@/components/allowed-values";
import { CodeTabs } from "@/components/code-tabs";
import { DataTable } from "@/components/data-table";
import { DocsShell } from "@/components/docs-shell";
import { JsonBlock } from "@/components/json-block";
import { InlineMarkdown } from "@/components/markdown";
import { TryIt } from "@/components/try-it";
import { getConfig } from "@/lib/config";
import { SAMPLE_LANGUAGES, allSamples } from "@/lib/portal/code-samples";
import { getDemoKey } from "@/lib/portal/demo-key";
import {
  getReferenceEndpoint,
  writeSamples,
  type RefError,
  type RefField,
  type RefHeader,
  type RefParam,
  type RefWriteOperation,
} from "@/lib/portal/reference";

type Props = { params: Promise<{ slug: string }> };

// Title and description of one endpoint's reference page.
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const e = getReferenceEndpoint((await params).slug);
  if (!e) return { title: "Not found" };
  return {
    title: `${e.summary} — GET ${e.path}`,
    description: `GET ${e.path} (scope ${e.scope}): ${e.description.replace(/`/g, "")}`,
  };
}

function limits(p: RefParam): string {
  const parts: string[] = [];
  if (p.minimum !== undefined && p.maximum !== undefined) parts.push(`${p.minimum} to ${p.maximum}`);
  else if (p.minimum !== undefined) parts.push(`≥ ${p.minimum}`);
  else if (p.maximum !== undefined) parts.push(`≤ ${p.maximum}`);
  if (p.maxLength !== undefined) parts.push(`${p.minLength ?? 0} to ${p.maxLength} characters`);
  if (p.array) parts.push("comma-separated");
  return parts.join("; ") || "—";
}

function FieldsTable({ fields, label }: { fields: RefField[]; label: string }) {
  return (
    <DataTable label={label}>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((f) => (
          <tr key={f.name}>
            <td className="param-name">{f.name}</td>
            <td className="type">
              {f.type}
              {f.required ? "" : " (optional)"}
            </td>
            <td>
              {f.description ? <InlineMarkdown source={f.description} /> : null}
              <AllowedValues label="Values" values={f.allowed} />
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}

// One endpoint: scope, parameters, code samples, try-it, response schema and example, errors.
export default async function EndpointPage({ params }: Props) {
  const { slug } = await params;
  const e = getReferenceEndpoint(slug);
  if (!e) notFound();
  const { baseUrl } = getConfig();
  const demoKey = getDemoKey(await headers());
  const sampleQuery: [string, string][] = [["perPage", "5"]];
  const sort = e.params.find((p) => p.name === "sort");
  if (sort?.example) sampleQuery.push(["sort", sort.example]);
  const samples = allSamples({ baseUrl, path: e.path, query: sampleQuery, key: "$PCA_API_KEY" });
  return (
    <DocsShell current={`/reference/${slug}`}>
      <article>
        <p className="muted">{e.tag}</p>
        <h1>{e.summary}</h1>
        <p className="endpoint-line">
          <span className="method">GET</span>
          <code>{e.path}</code>
        </p>
        <p>
          <InlineMarkdown source={e.description} />
        </p>
        <p>
          Required scope:{" "}
          <span className="scope-badge" data-testid="required-scope">
            {e.scope}
          </span>
        </p>

        <h2 id="parameters">Query parameters</h2>
        <p className="muted">All optional. Any other parameter is refused with a 400 that names it.</p>
        <DataTable label="Query parameters">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Default</th>
              <th scope="col">Limits</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {e.params.map((p) => (
              <tr key={p.name} id={`param-${p.name}`}>
                <td className="param-name">{p.name}</td>
                <td className="type">{displayType(p)}</td>
                <td>{p.defaultValue !== undefined ? <code>{p.defaultValue}</code> : "—"}</td>
                <td>{limits(p)}</td>
                <td>
                  <InlineMarkdown source={p.description} />
                  <AllowedValues label="Allowed" values={p.allowed} />
                  {p.example !== undefined ? (
                    <>
                      {" "}
                      Example: <code>{`${p.name}=${p.example}`}</code>.
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </DataTable>

        <h2 id="headers">Request headers</h2>
        <ParamsTable
          label="Request headers"
          params={[
            {
              name: "Authorization",
              type: "string",
              description: "`Bearer <API_KEY>` (required).",
              array: false,
              boolean: false,
            },
            ...e.headerParams,
          ]}
        />

        <h2 id="samples">Code samples</h2>
        <CodeTabs
          title={`GET ${e.path} samples`}
          tabs={SAMPLE_LANGUAGES.map((l) => ({ id: l.id, label: l.label, code: samples[l.id] }))}
        />

        <TryIt
          path={e.path}
          scope={e.scope}
          baseUrl={baseUrl}
          demoKey={demoKey}
          conditional={e.headerParams.some((h) => h.name === "If-None-Match")}
          params={e.params.map((p) => ({
            name: p.name,
            type: p.type,
            description: p.description.replace(/`/g, ""),
            allowed: p.allowed,
            array: p.array,
            boolean: p.boolean,
            example: p.example,
            defaultValue: p.defaultValue,
          }))}
        />

        <h2 id="response">Response 200</h2>
        <p>
          <code>
            {"{ data: "}
            {e.itemSchemaName}
            {"[], pagination: Pagination }"}
          </code>
          , with these headers:
        </p>
        <HeadersTable headers={e.successHeaderDocs} label="Response 200 headers" />
        <h3>{e.itemSchemaName} (each item of data)</h3>
        <FieldsTable fields={e.itemFields} label={`${e.itemSchemaName} fields`} />
        <h3>Pagination</h3>
        <FieldsTable fields={e.paginationFields} label="Pagination fields" />
        <JsonBlock title="Example response" value={e.exampleResponse} />

        {e.notModified ? (
          <>
            <h2 id="not-modified">Response 304 Not Modified</h2>
            <p>
              <InlineMarkdown source={e.notModified.description} /> See{" "}
              <Link href="/docs/keeping-in-sync">Keeping a copy in sync</Link>.
            </p>
            <HeadersTable headers={e.notModified.headers} label="Response 304 headers" />
          </>
        ) : null}

        <h2 id="errors">Errors</h2>
        <ErrorsSection errors={e.errors} label="Errors" />
        {e.writes.map((w) => (
          <WriteOperationSection key={w.operationId} op={w} baseUrl={baseUrl} />
        ))}
      </article>
    </DocsShell>
  );
}

// A parameter's type as the tables show it: with its format (date-time), when it has one.
function displayType(p: RefParam): string {
  return p.format ? `${p.type} (${p.format})` : p.type;
}

// The headers of an answer with their descriptions.
function HeadersTable({ headers, label }: { headers: RefHeader[]; label: string }) {
  return (
    <DataTable label={label}>
      <thead>
        <tr>
          <th scope="col">Header</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {headers.map((h) => (
          <tr key={h.name}>
            <td className="param-name">{h.name}</td>
            <td>
              <InlineMarkdown source={h.description} />
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}

// The errors of an operation: a table of statuses and codes, then each example body.
function ErrorsSection({ errors, label }: { errors: RefError[]; label: string }) {
  return (
    <>
      <DataTable label={label}>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">When</th>
            <th scope="col">Codes</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((err) => (
            <tr key={err.status}>
              <td className="status-code">{err.status}</td>
              <td>
                <InlineMarkdown source={err.description} />
              </td>
              <td>
                {[...new Set(err.examples.map((x) => String(x.body.code)))].map((c) => (
                  <div key={c}>
                    <code>{c}</code>
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </DataTable>
      {errors.map((err) =>
        err.examples.map((x) => (
          <details key={`${err.status}-${x.name}`}>
            <summary>
              <span className="status-code">{err.status}</span> {x.name}: {String(x.body.message)}
            </summary>
            <JsonBlock title={`${err.status} ${x.name}`} value={x.body} />
          </details>
        )),
      )}
    </>
  );
}

function ParamsTable({ params, label }: { params: RefParam[]; label: string }) {
  return (
    <DataTable label={label}>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Type</th>
          <th scope="col">Limits</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {params.map((p) => (
          <tr key={p.name}>
            <td className="param-name">{p.name}</td>
            <td className="type">{displayType(p)}</td>
            <td>{limits(p)}</td>
            <td>
              <InlineMarkdown source={p.description} />
              {p.example !== undefined ? (
                <>
                  {" "}
                  Example: <code>{p.example}</code>.
                </>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </DataTable>
  );
}

// A write operation of the endpoint's path (the write preview's POST), marked preview, rendered from the document.
function WriteOperationSection({ op, baseUrl }: { op: RefWriteOperation; baseUrl: string }) {
  const samples = writeSamples({ baseUrl, path: op.path, body: op.bodyExample, key: "$PCA_API_KEY" });
  const id = op.anchor;
  return (
    <section
      className="write-operation"
      id={id}
      aria-labelledby={`${id}-title`}
      data-testid={`operation-${id}`}
    >
      <h2 id={`${id}-title`}>
        {op.summary} {op.preview ? <span className="tag changed">Preview</span> : null}
      </h2>
      <p className="endpoint-line">
        <span className="method">{op.method}</span>
        <code>{op.path}</code>
      </p>
      <p>
        <InlineMarkdown source={op.description} />
      </p>
      <p>
        Required scope:{" "}
        <span className="scope-badge" data-testid={`${id}-scope`}>
          {op.scope}
        </span>{" "}
        · guide: <Link href="/docs/creating-products">Creating products (preview)</Link>
      </p>

      <h3 id={`${id}-headers`}>Headers</h3>
      <ParamsTable
        label={`${op.method} ${op.path} headers`}
        params={[
          {
            name: "Authorization",
            type: "string",
            description: "`Bearer <API_KEY>` (required).",
            array: false,
            boolean: false,
          },
          {
            name: "Content-Type",
            type: "string",
            description: "`application/json` (required; anything else is a 415).",
            array: false,
            boolean: false,
          },
          ...op.headerParams,
        ]}
      />
      <h3 id={`${id}-query`}>Query parameters</h3>
      <ParamsTable label={`${op.method} ${op.path} query parameters`} params={op.queryParams} />

      <h3 id={`${id}-body`}>Request body · {op.bodySchemaName}</h3>
      {op.bodyDescription ? (
        <p>
          <InlineMarkdown source={op.bodyDescription} />
        </p>
      ) : null}
      <FieldsTable fields={op.bodyFields} label={`${op.bodySchemaName} fields`} />
      <h4>Values by attribute type</h4>
      <DataTable label="Values by attribute type">
        <thead>
          <tr>
            <th scope="col">Attribute type</th>
            <th scope="col">JSON</th>
            <th scope="col">Description</th>
            <th scope="col">Example</th>
          </tr>
        </thead>
        <tbody>
          {op.valueTypes.map((v) => (
            <tr key={v.name}>
              <td className="param-name">{v.name}</td>
              <td className="type">{v.type}</td>
              <td>
                <InlineMarkdown source={v.description} />
              </td>
              <td>{v.example !== undefined ? <code>{JSON.stringify(v.example)}</code> : "—"}</td>
            </tr>
          ))}
        </tbody>
      </DataTable>
      <JsonBlock title="Example body" value={op.bodyExample} />

      <h3 id={`${id}-samples`}>Code samples</h3>
      <CodeTabs
        title={`${op.method} ${op.path} samples`}
        tabs={SAMPLE_LANGUAGES.map((l) => ({ id: l.id, label: l.label, code: samples[l.id] }))}
      />

      {op.responses.map((r) => (
        <div key={r.status}>
          <h3 id={`${id}-response-${r.status}`}>
            Response {r.status} · {r.schemaName}
          </h3>
          <p>
            <InlineMarkdown source={r.description} /> Headers:{" "}
            {r.headers.map((h, i) => (
              <span key={h}>
                {i ? ", " : ""}
                <code>{h}</code>
              </span>
            ))}
            .
          </p>
          <FieldsTable fields={r.fields} label={`${r.schemaName} fields`} />
          <JsonBlock title={`Example ${r.status} response`} value={r.example} />
        </div>
      ))}

      <h3 id={`${id}-errors`}>Errors</h3>
      <p className="muted">
        Every error of this operation names each offending field in <code>details</code> (
        <code>{"{ field, code, message }"}</code>).
      </p>
      <ErrorsSection errors={op.errors} label={`${op.method} ${op.path} errors`} />
    </section>
  );
}
