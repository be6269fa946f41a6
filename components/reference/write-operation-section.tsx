import Link from "next/link";
import { CodeTabs } from "@/components/code-tabs";
import { JsonBlock } from "@/components/json-block";
import { InlineMarkdown } from "@/components/markdown";
import { SAMPLE_LANGUAGES } from "@/lib/portal/code-samples";
import { writeSamples, type RefWriteOperation } from "@/lib/portal/reference";
import { ErrorsSection } from "./errors-section";
import { FieldsTable } from "./fields-table";
import { ParamsTable } from "./params-table";
import { ValueTypesTable } from "./value-types-table";

// A write operation of the endpoint's path (the write preview's POST), marked preview, rendered from the document.
export function WriteOperationSection({ op, baseUrl }: { op: RefWriteOperation; baseUrl: string }) {
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
      <ValueTypesTable valueTypes={op.valueTypes} />
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
