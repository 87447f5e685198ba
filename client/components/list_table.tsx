/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * A table of records, one row each: a header of column names, each row's
 * cells, and a last column of actions (its header named for screen readers
 * only), scrolling sideways on a narrow screen.
 */
import type { ComponentChildren } from "preact";

/** The table of `rows`: `columns` heads the cells `cells(row)` gives; `actions(row)` ends each row. */
export function ListTable<T extends { id: string }>(
  { labelledBy, columns, rows, cells, actions }: {
    /** The id of the heading that names the table. */
    labelledBy: string;
    columns: string[];
    rows: T[];
    cells: (row: T) => ComponentChildren[];
    actions: (row: T) => ComponentChildren;
  },
) {
  return (
    <div class="table-scroll">
      <table aria-labelledby={labelledBy}>
        <thead>
          <tr>
            {columns.map((c) => <th key={c} scope="col">{c}</th>)}
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              {cells(row).map((cell, i) => <td key={i}>{cell}</td>)}
              <td>{actions(row)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
