/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/** Files as cards: thumbnail, name, size and views, controls. */
import type { ApiFile } from "../../api/files.ts";
import { formatBytes } from "../../format.ts";
import { FileThumb } from "../../components/file_thumb.tsx";
import { FileActions, SelectBox } from "./file_actions.tsx";

/** What the grid and the table share. */
export interface FileViewProps {
  files: ApiFile[];
  label: string;
  selected: Set<string>;
  toggle: (id: string) => void;
  open: (file: ApiFile) => void;
  reload: () => void;
}

/** The grid of `files`. */
export function FileGrid({ files, label, selected, toggle, open, reload }: FileViewProps) {
  return (
    <ul class="file-grid" aria-label={label}>
      {files.map((file) => (
        <li key={file.id} class="file-card">
          <SelectBox file={file} selected={selected.has(file.id)} toggle={() => toggle(file.id)} />
          <button
            type="button"
            class="card-open"
            title={file.name}
            aria-label={`Details of ${file.name}`}
            onClick={() => open(file)}
          >
            <FileThumb file={file} />
            <span class="file-name">{file.name}</span>
          </button>
          <span class="muted">
            {formatBytes(file.size)} · {file.views} {file.views === 1 ? "view" : "views"}
          </span>
          <FileActions file={file} onChange={reload} />
        </li>
      ))}
    </ul>
  );
}
