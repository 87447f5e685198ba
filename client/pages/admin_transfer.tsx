/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/admin/transfer` (SUPERADMIN): the instance export as a download
 * (`GET /api/server/export`, with its counts first), and the import of a
 * Zipline v3 or v4 document chosen from disk, sent with a progress bar and
 * wrapped with the chosen options without reading the file into memory;
 * then the counts and the skipped records as the API answers them.
 */
import { useState } from "preact/hooks";
import { useLoad } from "../hooks.ts";
import {
  type ExportCounts,
  exportCounts,
  exportUrl,
  type ImportResult,
  sendImport,
} from "../api/transfer.ts";
import { formatBytes } from "../format.ts";
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

function Import({ onImported }: { onImported: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [version, setVersion] = useState<"3" | "4">("4");
  const [settings, setSettings] = useState(false);
  const [merge, setMerge] = useState("");
  const [sent, setSent] = useState<number | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    const options: Record<string, unknown> = version === "4"
      ? { config: { settings, ...(merge.trim() ? { mergeCurrentUser: merge.trim() } : {}) } }
      : merge.trim()
      ? { importFromUser: merge.trim() }
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
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </label>
        <SelectField
          label="Format"
          value={version}
          onValue={(v) => setVersion(v as "3" | "4")}
          options={[["4", "Zipline v4 or Ferry"], ["3", "Zipline v3"]]}
        />
        <label class="field">
          <span>
            {version === "4"
              ? "Merge this exported user into my account (id)"
              : "Merge this v3 user into my account (id)"}
          </span>
          <input type="text" value={merge} onInput={(e) => setMerge(e.currentTarget.value)} />
        </label>
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
          <button type="submit" class="primary" disabled={!file || sent !== null}>
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
export function AdminTransferPage() {
  const [counts, reload, error] = useLoad(exportCounts);
  return (
    <>
      <h1>Import and export</h1>
      <Export counts={counts} error={error} />
      <Import onImported={reload} />
    </>
  );
}
