import { DataTable } from "@/components/data-table";
import { InlineMarkdown } from "@/components/markdown";
import type { RefHeader } from "@/lib/portal/reference";

// The headers of an answer with their descriptions.
export function HeadersTable({ headers, label }: { headers: RefHeader[]; label: string }) {
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
