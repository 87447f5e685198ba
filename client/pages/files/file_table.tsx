/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * Files as a table whose columns are shown, hidden and reordered (the
 * "Columns" menu), remembered in this browser.
 */
import { useState } from "preact/hooks";
import { Icon } from "../../icons.tsx";
import { type ColumnChoice, COLUMNS, loadColumns, moveColumn, saveColumns } from "./columns.ts";
import { FileActions, SelectBox } from "./file_actions.tsx";
import type { FileViewProps } from "./file_grid.tsx";

/** The columns chooser. */
function ColumnMenu(
  { columns, onChange }: { columns: ColumnChoice[]; onChange: (c: ColumnChoice[]) => void },
) {
  const title = (id: string) => COLUMNS.find((c) => c.id === id)!.title;
  return (
    <details class="column-menu">
      <summary>Columns</summary>
      <ul aria-label="Columns">
        {columns.map((column, i) => (
          <li key={column.id}>
            <label class="check">
              <input
                type="checkbox"
                checked={column.shown}
                onChange={(e) =>
                  onChange(
                    columns.map((c) =>
                      c.id === column.id ? { ...c, shown: e.currentTarget.checked } : c
                    ),
                  )}
              />
              {title(column.id)}
            </label>
            <button
              type="button"
              class="icon-button"
              disabled={i === 0}
              aria-label={`Move ${title(column.id)} left`}
              title="Move left"
              onClick={() => onChange(moveColumn(columns, i, -1))}
            >
              ↑
            </button>
            <button
              type="button"
              class="icon-button"
              disabled={i === columns.length - 1}
              aria-label={`Move ${title(column.id)} right`}
              title="Move right"
              onClick={() => onChange(moveColumn(columns, i, 1))}
            >
              ↓
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The table of `files`. */
export function FileTable({ files, label, selected, toggle, open, reload }: FileViewProps) {
  const [columns, setColumns] = useState(() => loadColumns(localStorage));
  const choose = (next: ColumnChoice[]) => {
    saveColumns(localStorage, next);
    setColumns(next);
  };
  const shown = columns.filter((c) => c.shown).map((c) => COLUMNS.find((k) => k.id === c.id)!);
  return (
    <>
      <ColumnMenu columns={columns} onChange={choose} />
      <div class="table-scroll">
        <table class="file-table" aria-label={label}>
          <thead>
            <tr>
              <th scope="col">
                <span class="visually-hidden">Selected</span>
              </th>
              <th scope="col">Name</th>
              {shown.map((c) => <th key={c.id} scope="col">{c.title}</th>)}
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {files.map((file) => (
              <tr key={file.id}>
                <td>
                  <SelectBox
                    file={file}
                    selected={selected.has(file.id)}
                    toggle={() => toggle(file.id)}
                  />
                </td>
                <td class="file-name">
                  <button
                    type="button"
                    class="link"
                    aria-label={`Details of ${file.name}`}
                    onClick={() => open(file)}
                  >
                    {(file.password || file.private) && <Icon name="lock" size={14} />} {file.name}
                  </button>
                </td>
                {shown.map((c) => <td key={c.id}>{c.cell(file)}</td>)}
                <td>
                  <FileActions file={file} onChange={reload} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
