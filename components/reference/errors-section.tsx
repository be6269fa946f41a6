import { DataTable } from "@/components/data-table";
import { JsonBlock } from "@/components/json-block";
import { InlineMarkdown } from "@/components/markdown";
import type { RefError } from "@/lib/portal/reference";

// The errors of an operation: a table of statuses and codes, then each example body.
export function ErrorsSection({ errors, label }: { errors: RefError[]; label: string }) {
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
