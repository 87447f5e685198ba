/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * Everything an upload needs on one page: options, the drop zone, the files
 * waiting to go (unless the options say a drop uploads at once) and the
 * uploads' list.
 */
import { useCallback } from "preact/hooks";
import type { PageConfig } from "../config.ts";
import type { Uploaded } from "../upload.ts";
import { unfinishedUploads } from "../upload.ts";
import { DropZone } from "./drop_zone.tsx";
import { uploadOptions, UploadOptionsForm } from "./options_form.tsx";
import { enqueue, UploadList, uploads } from "./uploads.tsx";
import { stage, StagedFiles } from "./staged_files.tsx";

/** The uploader; `onStored` hears each stored file (the home page refreshes its list). */
export function Uploader(
  { config, onStored }: { config: PageConfig; onStored?: (file: Uploaded) => void },
) {
  const send = useCallback(
    (files: File[]) => enqueue(files, uploadOptions.value, config.chunkSize, onStored),
    [config, onStored],
  );
  const onFiles = useCallback(
    (files: File[]) => uploadOptions.value.uploadOnDrop ? send(files) : stage(files),
    [send],
  );
  // Stopped chunked uploads of earlier visits, unless the same file is on its way again.
  const unfinished = unfinishedUploads().filter((name) =>
    !uploads.value.some((item) => item.file.name === name)
  );
  return (
    <div class="uploader">
      <UploadOptionsForm config={config} />
      <DropZone onFiles={onFiles} />
      <StagedFiles onUpload={send} />
      {unfinished.length > 0 && (
        <p class="muted">
          Unfinished: {unfinished.join(", ")}. Choose the same file again to go on where it stopped.
        </p>
      )}
      <UploadList />
    </div>
  );
}
