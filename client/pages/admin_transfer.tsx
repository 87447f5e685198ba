/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/admin/transfer` (SUPERADMIN): the instance export as a download
 * (`GET /api/server/export`, with its counts first), and the import of a
 * Zipline v3 or v4 document chosen from disk. Once chosen, the file is read
 * in the browser as a stream (`client/export_summary.ts`): its format (which
 * sets the import's), where and when it was made, its records of each kind
 * and its users, of whom one may be picked, by name, to merge into the
 * importing account. It is sent with a progress bar and wrapped with the
 * chosen options without reading it into memory; then the counts and the
 * skipped records as the API answers them.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useLoad } from "../hooks.ts";
import type { PageConfig } from "../config.ts";
import { type ExportSummary, type ExportUser, summarizeExport } from "../export_summary.ts";
import { listUsers } from "../api/users.ts";
import {
  type ExportCounts,
  exportCounts,
  exportUrl,
  type ImportResult,
  sendImport,
} from "../api/transfer.ts";
import { formatBytes, formatDate } from "../format.ts";
import { SelectField } from "../components/field.tsx";

function Export(
  { counts, error }: { counts: ExportCounts | null; error: string | null },
) {
  const [metrics, setMetrics] = useState(true);
  return (
    <section class="card" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <p class="muted">
        A Zipline v4 document of this instance: users (with password hashes), quotas, folders, file
        records (copy the bytes yourself), URLs, invites, metrics and the settings.
      </p>
      {error && <p class="error" role="alert">{error}</p>}
      {counts && (
        <dl class="counts" aria-label="What an export holds">
          {Object.entries(counts).map(([kind, n]) => (
            <div key={kind}>
              <dt>{kind}</dt>
              <dd>{n}</dd>
            </div>
          ))}
        </dl>
      )}
      <div class="button-row">
        <label class="check">
          <input
            type="checkbox"
            checked={metrics}
            onChange={(e) => setMetrics(e.currentTarget.checked)}
          />
          Include the metrics
        </label>
        <a
          class="button primary"
          href={exportUrl(metrics)}
          download
        >
          Download the export
        </a>
      </div>
    </section>
  );
}

/** `file` wrapped as the API's `{exportN: document, …options}` body, as a Blob of parts. */
function wrapped(file: File, version: "3" | "4", options: Record<string, unknown>): Blob {
  const rest = JSON.stringify(options).slice(1, -1);
  return new Blob(
    [`{"export${version}":`, file, rest ? `,${rest}}` : "}"],
    { type: "application/json" },
  );
}

function Result({ result }: { result: ImportResult }) {
  const counts = result.imported ?? Object.fromEntries(
    (["users", "files", "folders", "urls"] as const).map((k) => [
      k,
      Object.keys(result[k] ?? {}).length,
    ]),
  );
  return (
    <section aria-label="Import result">
      <h3>Imported</h3>
      <dl class="counts" aria-label="Imported records">
        {Object.entries(counts).map(([kind, n]) => (
          <div key={kind}>
            <dt>{kind}</dt>
            <dd>{n}</dd>
          </div>
        ))}
      </dl>
      {result.settings && (
        <p class="muted">
          Settings imported: {result.settings.imported.length}
          {result.settings.invalid.length > 0 &&
            `; left out as invalid: ${result.settings.invalid.map((i) => i.message).join("; ")}`}
        </p>
      )}
      <h3>Skipped</h3>
      {result.skipped.length === 0
        ? <p class="muted">Nothing was skipped.</p>
        : (
          <ul aria-label="Skipped records">
            {result.skipped.map((s) => (
              <li key={`${s.kind}:${s.reason}`}>
                {s.count} {s.kind}: {s.reason}
              </li>
            ))}
          </ul>
        )}
    </section>
  );
}

/** How the export's users are listed: those of `summary` matching `search`, at most this many. */
const SHOWN_USERS = 12;

/** What the chosen export holds: format, origin, counts, and its files' total size. */
function ExportDetails({ summary, file }: { summary: ExportSummary; file: File }) {
  return (
    <section class="export-details" aria-labelledby="export-details-title">
      <h3 id="export-details-title">In this file</h3>
      {summary.format === null
        ? (
          <p class="error" role="alert">
            This JSON file ({formatBytes(file.size)}) is not a Zipline export: it has no export
            version.
          </p>
        )
        : (
          <p>
            A Zipline v{summary.format} export
            {summary.zipline && ` from Zipline ${summary.zipline}`}
            {summary.exportedAt && `, made ${formatDate(summary.exportedAt)}`}
            {summary.exportedBy && ` by ${summary.exportedBy}`}
            {` (${formatBytes(file.size)}).`}
          </p>
        )}
      {summary.counts.length > 0 && (
        <dl class="counts" aria-label="Records in the file">
          {summary.counts.map(({ kind, count }) => (
            <div key={kind}>
              <dt>{kind}</dt>
              <dd>{count.toLocaleString()}</dd>
            </div>
          ))}
        </dl>
      )}
      {summary.counts.some((c) => c.kind === "files" && c.count > 0) && (
        <p class="muted">
          Its files add up to{" "}
          {formatBytes(summary.fileBytes)}. An export holds their records only: copy the bytes into
          this server's storage yourself.
        </p>
      )}
    </section>
  );
}

/**
 * The user of the export to merge into the importing account (Zipline's
 * "merge user"), chosen from the export's own users, searchable by name;
 * each marked when this server already has a user of that name (imported
 * only if merged) or when it is the importing account itself.
 */
function MergePicker(
  { users, taken, me, value, onValue }: {
    users: ExportUser[];
    taken: Set<string>;
    me: string | undefined;
    value: string;
    onValue: (id: string) => void;
  },
) {
  const [search, setSearch] = useState("");
  const wanted = search.trim().toLowerCase();
  const matching = users.filter((u) => u.username.toLowerCase().includes(wanted));
  const shown = matching.slice(0, SHOWN_USERS);
  const chosen = users.find((u) => u.id === value);
  if (chosen && !shown.includes(chosen)) shown.unshift(chosen);
  return (
    <fieldset class="merge-picker">
      <legend>Merge an exported user into my account</legend>
      <p class="muted" id="merge-help">
        That user's files, folders and links become yours; the others are imported as their own
        accounts.
      </p>
      <label class="field">
        <span>Find a user of the export</span>
        <input
          type="search"
          value={search}
          aria-describedby="merge-help"
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
      </label>
      <div class="merge-choices">
        <label class="check">
          <input
            type="radio"
            name="merge"
            checked={value === ""}
            onChange={() => onValue("")}
          />
          No one: import every user as their own account
        </label>
        {shown.map((u) => (
          <label class="check" key={u.id}>
            <input
              type="radio"
              name="merge"
              value={u.id}
              checked={value === u.id}
              onChange={() => onValue(u.id)}
            />
            <span>
              {u.username} <span class="badge">{u.role}</span>
              {u.id === me && (
                <>
                  {" "}
                  <span class="badge">you (this server's export)</span>
                </>
              )}
              {u.id !== me && taken.has(u.username) && (
                <>
                  {" "}
                  <span class="badge">a user of this name is here</span>
                </>
              )}
            </span>
          </label>
        ))}
      </div>
      <p class="muted" role="status">
        {matching.length === 0
          ? "No user of the export matches."
          : matching.length > shown.length
          ? `${matching.length} users match; ${shown.length} shown: narrow the search.`
          : `${users.length} ${users.length === 1 ? "user" : "users"} in the export.`}
      </p>
    </fieldset>
  );
}

/** The export being read: bytes read so far, the summary once read, or why it failed. */
interface Reading {
  read: number;
  summary: ExportSummary | null;
  error: string | null;
}

function Import({ onImported, me }: { onImported: () => void; me: string | undefined }) {
  const [file, setFile] = useState<File | null>(null);
  const [reading, setReading] = useState<Reading | null>(null);
  const [version, setVersion] = useState<"3" | "4">("4");
  const [settings, setSettings] = useState(false);
  const [merge, setMerge] = useState("");
  const [sent, setSent] = useState<number | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [serverUsers] = useLoad(listUsers);
  const taken = useMemo(() => new Set((serverUsers ?? []).map((u) => u.username)), [serverUsers]);
  const scan = useRef<AbortController | null>(null);
  useEffect(() => () => scan.current?.abort(), []);
  const choose = async (chosen: File | null) => {
    scan.current?.abort();
    setFile(chosen);
    setMerge("");
    setResult(null);
    setError(null);
    setReading(null);
    if (!chosen) return;
    const controller = new AbortController();
    scan.current = controller;
    setReading({ read: 0, summary: null, error: null });
    let shown = 0;
    try {
      const summary = await summarizeExport(chosen, {
        signal: controller.signal,
        progress: (read) => {
          // Redrawn at each hundredth of the file, not at each of its chunks.
          if (read - shown < chosen.size / 100) return;
          shown = read;
          setReading({ read, summary: null, error: null });
        },
      });
      if (controller.signal.aborted) return;
      if (summary.format) setVersion(summary.format);
      setReading({ read: chosen.size, summary, error: null });
    } catch (e) {
      if (controller.signal.aborted) return;
      setReading({ read: 0, summary: null, error: (e as Error).message });
    }
  };
  const summary = reading?.summary ?? null;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    const options: Record<string, unknown> = version === "4"
      ? { config: { settings, ...(merge ? { mergeCurrentUser: merge } : {}) } }
      : merge
      ? { importFromUser: merge }
      : {};
    setResult(null);
    setError(null);
    setSent(0);
    try {
      const answer = await sendImport(version, wrapped(file, version, options), setSent);
      const body = answer.body;
      if (answer.status !== 200) {
        const issues = body?.issues?.map((i) => i.message).join("; ");
        setError(
          `${body?.error ?? `Import failed (${answer.status})`}${issues ? `: ${issues}` : ""}`,
        );
      } else {
        setResult(body);
        onImported();
      }
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setSent(null);
    }
  };
  const mismatch = summary?.format && summary.format !== version;
  return (
    <section class="card" aria-labelledby="import-title">
      <h2 id="import-title">Import</h2>
      <form onSubmit={submit} aria-label="Import" class="admin-grid">
        <label class="field">
          <span>Export document</span>
          <input
            type="file"
            accept="application/json,.json"
            required
            onChange={(e) => choose(e.currentTarget.files?.[0] ?? null)}
          />
        </label>
        <SelectField
          label="Format"
          value={version}
          onValue={(v) => setVersion(v as "3" | "4")}
          options={[["4", "Zipline v4 or Ferry"], ["3", "Zipline v3"]]}
        />
        {file && reading && !summary && !reading.error && (
          <div class="field wide-field">
            <span id="reading-label">Reading {file.name}…</span>
            <progress
              max={file.size}
              value={reading.read}
              aria-labelledby="reading-label"
              class="wide"
            />
          </div>
        )}
        {reading?.error && (
          <p class="error wide-field" role="alert">
            This file cannot be read as an export: {reading.error}.
          </p>
        )}
        {file && summary && <ExportDetails summary={summary} file={file} />}
        {mismatch && (
          <p class="error wide-field" role="alert">
            The file is a v{summary.format} export: import it as Zipline v{summary.format}.
          </p>
        )}
        {summary && summary.users.length > 0 && (
          <MergePicker
            users={summary.users}
            taken={taken}
            me={me}
            value={merge}
            onValue={setMerge}
          />
        )}
        {version === "4" && (
          <label class="check">
            <input
              type="checkbox"
              checked={settings}
              onChange={(e) => setSettings(e.currentTarget.checked)}
            />
            Also import the settings
          </label>
        )}
        <div class="button-row">
          <button
            type="submit"
            class="primary"
            disabled={!file || sent !== null || !summary?.format || !!mismatch}
          >
            Import
          </button>
          {file && <span class="muted">{file.name}, {formatBytes(file.size)}</span>}
        </div>
      </form>
      {sent !== null && file && (
        <progress max={file.size} value={sent} aria-label="Import progress" class="wide" />
      )}
      {error && <p class="error" role="alert">{error}</p>}
      {result && <Result result={result} />}
    </section>
  );
}

/** The import and export page. */
export function AdminTransferPage({ config }: { config: PageConfig }) {
  const [counts, reload, error] = useLoad(exportCounts);
  return (
    <>
      <h1>Import and export</h1>
      <Export counts={counts} error={error} />
      <Import onImported={reload} me={config.user?.id} />
    </>
  );
}
