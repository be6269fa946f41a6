import { DataTable } from "@/components/data-table";
import { InlineMarkdown } from "@/components/markdown";
import type { RefValueType } from "@/lib/portal/reference";

// The values a write body accepts, one row per attribute type: its JSON, description and example.
export function ValueTypesTable({ valueTypes }: { valueTypes: RefValueType[] }) {
  return (
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
        {valueTypes.map((v) => (
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
  );
}
