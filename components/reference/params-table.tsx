import { DataTable } from "@/components/data-table";
import { InlineMarkdown } from "@/components/markdown";
import type { RefParam } from "@/lib/portal/reference";
import { displayType, paramLimits } from "./param-text";

// A table of request headers or parameters: type, limits, description and example (as sent).
export function ParamsTable({ params, label }: { params: RefParam[]; label: string }) {
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
            <td>{paramLimits(p)}</td>
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
