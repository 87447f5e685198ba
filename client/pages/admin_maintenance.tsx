/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/admin/maintenance`: the `/api/server/*` maintenance tasks, each
 * with the server's answer beside it: clear the temporary files, remove the
 * files recorded with no bytes (listed first), re-read file sizes, make
 * thumbnails.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import {
  clearTemp,
  clearZeroFiles,
  listZeroFiles,
  makeThumbnails,
  requerySizes,
} from "../api/maintenance.ts";
import { useLoad } from "../hooks.ts";

/** One task: what it does, its options, its button and its last answer. */
function Task(
  { title, about, action, run, children }: {
    title: string;
    about: string;
    action: string;
    run: () => Promise<{ status: string }>;
    children?: ComponentChildren;
  },
) {
  const [answer, setAnswer] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    try {
      setAnswer({ ok: true, text: (await run()).status });
    } catch (e) {
      setAnswer({ ok: false, text: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      <p class="muted">{about}</p>
      {children}
      <div class="button-row">
        <button type="button" class="primary" disabled={busy} onClick={start}>{action}</button>
      </div>
      {answer && (
        <p class={answer.ok ? "ok" : "error"} role={answer.ok ? "status" : "alert"}>
          {answer.text}
        </p>
      )}
    </section>
  );
}

function Check(
  { label, checked, onChange }: {
    label: string;
    checked: boolean;
    onChange: (checked: boolean) => void;
  },
) {
  return (
    <label class="check">
      <input
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      {label}
    </label>
  );
}

/** The maintenance page. */
export function AdminMaintenancePage() {
  const [zeros, reloadZeros, zerosError] = useLoad(listZeroFiles);
  const [forceUpdate, setForceUpdate] = useState(false);
  const [forceDelete, setForceDelete] = useState(false);
  const [rerun, setRerun] = useState(false);
  const count = zeros?.files.length ?? 0;
  return (
    <>
      <h1>Maintenance</h1>
      <Task
        title="Temporary files"
        about="Removes the spools of imports and chunked uploads left in the temporary directory."
        action="Clear temporary files"
        run={clearTemp}
      />
      <Task
        title="Files with no bytes"
        about="Files recorded with a size of 0: their records and whatever bytes they have go."
        action={`Remove ${count} ${count === 1 ? "file" : "files"}`}
        run={async () => {
          const answer = await clearZeroFiles();
          reloadZeros();
          return answer;
        }}
      >
        {zerosError && <p class="error" role="alert">{zerosError}</p>}
        {zeros && count === 0 && <p>No file has a size of 0.</p>}
        {count > 0 && (
          <ul aria-label="Files with a size of 0">
            {zeros!.files.map((f) => <li key={f.id}>{f.name}</li>)}
          </ul>
        )}
      </Task>
      <Task
        title="File sizes"
        about="Sets each recorded size to the size of the file's bytes in storage."
        action="Re-read file sizes"
        run={() => requerySizes({ forceUpdate, forceDelete })}
      >
        <Check
          label="Every file, not only those recorded as 0"
          checked={forceUpdate}
          onChange={setForceUpdate}
        />
        <Check
          label="Remove the records of files whose bytes are gone"
          checked={forceDelete}
          onChange={setForceDelete}
        />
      </Task>
      <Task
        title="Thumbnails"
        about="Makes the missing thumbnails of images and videos, in the background."
        action="Make thumbnails"
        run={() => makeThumbnails({ rerun })}
      >
        <Check label="Remake existing thumbnails too" checked={rerun} onChange={setRerun} />
      </Task>
    </>
  );
}
