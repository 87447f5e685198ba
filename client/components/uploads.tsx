/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The uploads of this page: a queue that runs three at a time, and the list
 * that shows each with its progress bar, speed and time left, a way to cancel,
 * and, once stored, its link with a copy button.
 */
import { signal } from "@preact/signals";
import { formatBytes, formatSeconds } from "../format.ts";
import { Icon } from "../icons.tsx";
import {
  Cancelled,
  type Progress,
  startUpload,
  type Uploaded,
  type UploadOptions,
  type UploadTask,
} from "../upload.ts";
import { LinkTools } from "./link_tools.tsx";
import { toast } from "./feedback.tsx";

/** One file on its way. */
interface UploadItem {
  key: number;
  file: File;
  progress: Progress;
  state: "waiting" | "uploading" | "done" | "failed" | "cancelled";
  result?: Uploaded;
  error?: string;
  task?: UploadTask;
}

const AT_ONCE = 3;
let nextKey = 0;

/** Every upload started on this page, newest first. */
export const uploads = signal<UploadItem[]>([]);

function update(key: number, change: Partial<UploadItem>): void {
  uploads.value = uploads.value.map((item) => item.key === key ? { ...item, ...change } : item);
}

/**
 * Queues `files` with `options`; `onStored` hears each file the server stored.
 * `anonymous` uploads leave the session out (a public folder's upload box).
 */
export function enqueue(
  files: File[],
  options: UploadOptions,
  chunkSize: number | null,
  onStored: (file: Uploaded) => void = () => {},
  anonymous = false,
): void {
  const added = files.map((file): UploadItem => ({
    key: nextKey++,
    file,
    state: "waiting",
    progress: { sent: 0, total: file.size, speed: 0, secondsLeft: Infinity },
  }));
  uploads.value = [...added.reverse(), ...uploads.value];
  const next = () => {
    const waiting = uploads.value.filter((u) => u.state === "waiting").at(-1);
    if (!waiting || uploads.value.filter((u) => u.state === "uploading").length >= AT_ONCE) {
      return;
    }
    const task = startUpload(waiting.file, options, chunkSize, (progress) => {
      update(waiting.key, { progress });
    }, anonymous);
    update(waiting.key, { state: "uploading", task });
    task.done.then(
      (result) => {
        update(waiting.key, { state: "done", result });
        onStored(result);
      },
      (error: Error) =>
        update(
          waiting.key,
          error instanceof Cancelled ? { state: "cancelled" } : {
            state: "failed",
            error: error.message,
          },
        ),
    ).finally(next);
    next();
  };
  next();
}

/** The absolute link of a stored file. */
function absolute(url: string): string {
  return new URL(url, location.origin).href;
}

function UploadRow({ item }: { item: UploadItem }) {
  const { file, progress, state } = item;
  const percent = progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 100;
  return (
    <li class="upload" data-state={state}>
      <div class="upload-head">
        <strong class="upload-name">{file.name}</strong>
        <span class="muted">{formatBytes(file.size)}</span>
        {(state === "uploading" || state === "waiting") && (
          <button
            type="button"
            class="icon-button"
            aria-label={`Cancel ${file.name}`}
            title="Cancel"
            onClick={() =>
              item.task ? item.task.cancel() : update(item.key, { state: "cancelled" })}
          >
            <Icon name="close" />
          </button>
        )}
      </div>
      {state === "uploading" && (
        <>
          <progress max={100} value={percent} aria-label={`Progress of ${file.name}`} />
          <span class="muted">
            {percent} % · {formatBytes(progress.speed)}/s · {formatSeconds(progress.secondsLeft)}
            {" "}
            left
          </span>
        </>
      )}
      {state === "waiting" && <span class="muted">Waiting…</span>}
      {state === "cancelled" && <span class="muted">Cancelled</span>}
      {state === "failed" && <span class="error" role="alert">{item.error}</span>}
      {state === "done" && item.result && (
        <LinkTools href={absolute(item.result.url)} name={file.name} />
      )}
    </li>
  );
}

/** The list of this page's uploads, and "Copy all links" once some are stored. */
export function UploadList() {
  if (uploads.value.length === 0) return null;
  const links = uploads.value.filter((item) => item.state === "done" && item.result)
    .map((item) => absolute(item.result!.url));
  return (
    <>
      {links.length > 0 && (
        <div class="button-row">
          <button
            type="button"
            onClick={async () => {
              await navigator.clipboard.writeText(links.join("\n"));
              toast(`Copied ${links.length} links.`);
            }}
          >
            <Icon name="copy" /> Copy all links
          </button>
        </div>
      )}
      <ul class="uploads" aria-label="Uploads">
        {uploads.value.map((item) => <UploadRow key={item.key} item={item} />)}
      </ul>
    </>
  );
}
