import { AllowedValues } from "@/components/allowed-values";
import { DataTable } from "@/components/data-table";
import { InlineMarkdown } from "@/components/markdown";
import type { RefParam } from "@/lib/portal/reference";
import { displayType, paramLimits } from "./param-text";

// The query parameters of a list: type, default, limits, allowed values and example, each row an anchor
// (#param-<name>).
export function QueryParamsTable({ params }: { params: RefParam[] }) {
  return (
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
        {params.map((p) => (
          <tr key={p.name} id={`param-${p.name}`}>
            <td className="param-name">{p.name}</td>
            <td className="type">{displayType(p)}</td>
            <td>{p.defaultValue !== undefined ? <code>{p.defaultValue}</code> : "—"}</td>
            <td>{paramLimits(p)}</td>
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
  );
}
