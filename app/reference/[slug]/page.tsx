import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { CodeTabs } from "@/components/code-tabs";
import { DocsShell } from "@/components/docs-shell";
import { JsonBlock } from "@/components/json-block";
import { InlineMarkdown } from "@/components/markdown";
import { ErrorsSection } from "@/components/reference/errors-section";
import { FieldsTable } from "@/components/reference/fields-table";
import { HeadersTable } from "@/components/reference/headers-table";
import { ParamsTable } from "@/components/reference/params-table";
import { QueryParamsTable } from "@/components/reference/query-params-table";
import { WriteOperationSection } from "@/components/reference/write-operation-section";
import { TryIt } from "@/components/try-it";
import { getConfig } from "@/lib/config";
import { SAMPLE_LANGUAGES, allSamples, expandPath, streamSamples } from "@/lib/portal/code-samples";
import { getDemoKey } from "@/lib/portal/demo-key";
import { getReferenceEndpoint } from "@/lib/portal/reference";

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

// One endpoint: scope, parameters, code samples, try-it, response schema and example, errors.
export default async function EndpointPage({ params }: Props) {
  const { slug } = await params;
  const e = getReferenceEndpoint(slug);
  if (!e) notFound();
  const { baseUrl } = getConfig();
  const demoKey = getDemoKey(await headers());
  // A list's samples ask for a short page (the change feed's, for a few events); an item's for the example's id; an
  // export's for its example resource, read as a stream.
  const size = e.stream ? undefined : e.params.find((p) => p.name === "perPage" || p.name === "limit");
  const sampleQuery: [string, string][] = size ? [[size.name, "5"]] : [];
  const sort = e.params.find((p) => p.name === "sort");
  if (sort?.example) sampleQuery.push(["sort", sort.example]);
  const pathExample = (p: { example?: string }) => p.example ?? String(e.exampleResponse.id ?? "");
  const samplePath = expandPath(
    e.path,
    Object.fromEntries(e.pathParams.map((p) => [p.name, pathExample(p)])),
  );
  const sample = { baseUrl, path: samplePath, query: sampleQuery, key: "$PCA_API_KEY" };
  const samples = e.stream ? streamSamples(sample) : allSamples(sample);
  return (
    <DocsShell current={`/reference/${slug}`}>
      <article>
        <p className="muted">{e.tag}</p>
        <h1>{e.summary}</h1>
        <p className="endpoint-line">
          <span className="method">GET</span>
          <code>{e.path}</code>
          {e.preview ? (
            <>
              {" "}
              <span className="tag changed">Preview</span>
            </>
          ) : null}
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

        {e.pathParams.length ? (
          <>
            <h2 id="path-parameters">Path parameters</h2>
            <p className="muted">Required, percent-encoded as one path segment.</p>
            <ParamsTable label="Path parameters" params={e.pathParams} />
          </>
        ) : null}

        <h2 id="parameters">Query parameters</h2>
        {e.params.length ? (
          <>
            <p className="muted">All optional. Any other parameter is refused with a 400 that names it.</p>
            <QueryParamsTable params={e.params} />
          </>
        ) : (
          <p className="muted">None: any parameter is refused with a 400 that names it.</p>
        )}

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
          pathParams={e.pathParams.map((p) => ({
            name: p.name,
            type: p.type,
            description: p.description.replace(/`/g, ""),
            array: false,
            boolean: false,
            example: pathExample(p),
          }))}
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
        {e.stream ? (
          <>
            <p>
              <code>{e.stream.mediaType}</code>: <InlineMarkdown source={e.stream.description} /> With these
              headers:
            </p>
            <HeadersTable headers={e.successHeaderDocs} label="Response 200 headers" />
            <h3>{e.stream.endSchemaName} (the last line)</h3>
            <FieldsTable fields={e.stream.endFields} label={`${e.stream.endSchemaName} fields`} />
          </>
        ) : e.item ? (
          <>
            <p>
              One <code>{e.itemSchemaName}</code>, whole (no pagination), with these headers:
            </p>
            <HeadersTable headers={e.successHeaderDocs} label="Response 200 headers" />
            <h3>{e.itemSchemaName}</h3>
            <FieldsTable fields={e.itemFields} label={`${e.itemSchemaName} fields`} />
          </>
        ) : e.pageFields.length ? (
          <>
            <p>
              <code>
                {"{ data: "}
                {e.itemSchemaName}
                {"[], "}
                {e.pageFields.map((f) => `${f.name}: ${f.type}`).join(", ")}
                {" }"}
              </code>
              , with these headers:
            </p>
            <HeadersTable headers={e.successHeaderDocs} label="Response 200 headers" />
            <FieldsTable fields={e.pageFields} label="Response 200 fields" />
            <h3>{e.itemSchemaName} (each item of data)</h3>
            <FieldsTable fields={e.itemFields} label={`${e.itemSchemaName} fields`} />
          </>
        ) : (
          <>
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
          </>
        )}
        {e.stream ? (
          <JsonBlock title="Example lines" value={e.stream.exampleLines} lines />
        ) : (
          <JsonBlock title="Example response" value={e.exampleResponse} />
        )}

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
