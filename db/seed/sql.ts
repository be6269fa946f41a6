// How the generator writes SQL: named placeholders bound to values, and rows given as columns.
import type { Executor } from "@/db/client";

// Replaces {name} placeholders with $n and returns the ordered values.
export function bind(text: string, values: Record<string, unknown>): [string, unknown[]] {
  const order: string[] = [];
  const sql = text.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`seed SQL: no value for {${name}}`);
    let i = order.indexOf(name);
    if (i < 0) i = order.push(name) - 1;
    return `$${i + 1}`;
  });
  return [sql, order.map((n) => values[n])];
}

// Runs a statement written with {name} placeholders.
export async function run(tx: Executor, text: string, values: Record<string, unknown>): Promise<void> {
  const [sql, params] = bind(text, values);
  await tx.query(sql, params);
}

// Inserts rows given as columns with one unnest() statement.
export async function insertColumns(
  tx: Executor,
  table: string,
  columns: Record<string, [type: string, values: unknown[]]>,
) {
  const names = Object.keys(columns);
  const casts = names.map((n, i) => `$${i + 1}::${columns[n]![0]}[]`);
  await tx.query(
    `insert into ${table} (${names.join(", ")}) select * from unnest(${casts.join(", ")})`,
    names.map((n) => columns[n]![1]),
  );
}
