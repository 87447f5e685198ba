/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * Files chosen or dropped, listed before they go: a preview (images), the
 * name and size, "Remove"; then one "Upload N files (size)" button.
 */
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { formatBytes } from "../format.ts";
import { Icon } from "../icons.tsx";

/** A file waiting to be sent. */
interface Staged {
  key: number;
  file: File;
}

let nextKey = 0;
/** The files waiting, in the order they came. */
export const staged = signal<Staged[]>([]);

/** Adds `files` to the waiting list. */
export function stage(files: File[]): void {
  staged.value = [...staged.value, ...files.map((file) => ({ key: nextKey++, file }))];
}

/** The largest image previewed (read whole into a `data:` address, which the CSP allows). */
const PREVIEW_MAX = 8 * 1024 * 1024;

/** An image's preview from its bytes; other files get an icon. */
function Preview({ file }: { file: File }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file.type.startsWith("image/") || file.type === "image/svg+xml") return;
    if (file.size > PREVIEW_MAX) return;
    const reader = new FileReader();
    reader.onload = () => setUrl(typeof reader.result === "string" ? reader.result : null);
    reader.readAsDataURL(file);
    return () => reader.abort();
  }, [file]);
  return url
    ? <img class="staged-thumb" src={url} alt="" />
    : (
      <span class="staged-thumb icon-thumb" aria-hidden="true">
        <Icon name="file" />
      </span>
    );
}

/** The waiting list and its button; `onUpload` gets the files when the button is pressed. */
export function StagedFiles({ onUpload }: { onUpload: (files: File[]) => void }) {
  const items = staged.value;
  if (items.length === 0) return null;
  const size = items.reduce((sum, item) => sum + item.file.size, 0);
  const send = () => {
    const files = items.map((item) => item.file);
    staged.value = [];
    onUpload(files);
  };
  return (
    <section class="card staged" aria-label="Files to send">
      <ul class="staged-list">
        {items.map(({ key, file }) => (
          <li key={key} class="staged-row">
            <Preview file={file} />
            <span class="upload-name">{file.name}</span>
            <span class="muted">{formatBytes(file.size)}</span>
            <button
              type="button"
              class="icon-button"
              aria-label={`Remove ${file.name}`}
              title="Remove"
              onClick={() => staged.value = staged.value.filter((item) => item.key !== key)}
            >
              <Icon name="close" />
            </button>
          </li>
        ))}
      </ul>
      <div class="button-row">
        <button type="button" class="primary" onClick={send}>
          Upload {items.length} {items.length === 1 ? "file" : "files"} ({formatBytes(size)})
        </button>
        <button type="button" onClick={() => staged.value = []}>Remove all</button>
      </div>
    </section>
  );
}
