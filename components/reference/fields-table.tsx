import { AllowedValues } from "@/components/allowed-values";
import { DataTable } from "@/components/data-table";
import { InlineMarkdown } from "@/components/markdown";
import type { RefField } from "@/lib/portal/reference";

// The fields of a schema (an item, the pagination, a request or response body): name, type, description, values.
export function FieldsTable({ fields, label }: { fields: RefField[]; label: string }) {
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
