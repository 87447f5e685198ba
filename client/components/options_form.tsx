/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The upload options, every one Zipline offers: expiry (presets up to the
 * server's maximum), name format, a name of one's own, image compression
 * (format and quality), max views, folder (and a new one made here),
 * domain, password, original name; and whether a drop uploads at once.
 * Kept in a signal every upload reads, and remembered in this browser
 * (`localStorage`, all but the password) with a "Saved" mark and Clear.
 */
import { signal } from "@preact/signals";
import type { PageConfig } from "../config.ts";
import {
  expiryChoices,
  hasSavedOptions,
  loadOptions,
  saveOptions,
  type UploadOptions,
} from "../upload_options.ts";
import { Field, SelectField, TextField } from "./field.tsx";
import { FolderPicker } from "./folder_picker.tsx";

/** The options the next upload uses. */
export const uploadOptions = signal<UploadOptions>({});
/** Whether this browser remembers options. */
const saved = signal(false);
let loaded = false;

function set(change: Partial<UploadOptions>): void {
  uploadOptions.value = { ...uploadOptions.value, ...change };
  saveOptions(localStorage, uploadOptions.value);
  saved.value = hasSavedOptions(localStorage);
}

/** Loads the remembered options once per page. */
function loadOnce(config: PageConfig): void {
  if (loaded) return;
  loaded = true;
  uploadOptions.value = loadOptions(localStorage, config.maxExpirationMs ?? null);
  saved.value = hasSavedOptions(localStorage);
}

const COMPRESSION_TYPES = [["jpg", "JPEG"], ["png", "PNG"], ["webp", "WebP"], [
  "jxl",
  "JPEG XL",
]] as const;

/** The options form. */
export function UploadOptionsForm({ config }: { config: PageConfig }) {
  loadOnce(config);
  const o = uploadOptions.value;
  const clear = () => {
    uploadOptions.value = {};
    saveOptions(localStorage, {});
    saved.value = false;
  };
  return (
    <details class="options">
      <summary>
        Upload options
        {saved.value && <span class="badge" title="Remembered in this browser">Saved</span>}
      </summary>
      <div class="options-grid">
        <SelectField
          label="Expires after"
          value={o.deletesAt ?? ""}
          onValue={(v) => set({ deletesAt: v })}
          options={config.maxExpirationMs
            ? [["", "Server default"], ...expiryChoices(config.maxExpirationMs)]
            : expiryChoices(null)}
        />
        <SelectField
          label="Name format"
          value={o.format ?? ""}
          onValue={(v) => set({ format: v })}
          options={[["", "Server default"], ...config.formats.map((f) => [f, f] as const)]}
        />
        <TextField
          label="Own file name"
          type="text"
          value={o.filename ?? ""}
          onValue={(v) => set({ filename: v })}
        />
        <TextField
          label="Image quality %"
          type="number"
          min={0}
          value={o.compressionPercent ?? ""}
          onValue={(v) => set({ compressionPercent: v })}
        />
        <SelectField
          label="Compressed image format"
          value={o.compressionType ?? ""}
          onValue={(v) => set({ compressionType: v })}
          options={[["", "Server default"], ...COMPRESSION_TYPES]}
        />
        <TextField
          label="Max views"
          type="number"
          min={0}
          value={o.maxViews ?? ""}
          onValue={(v) => set({ maxViews: v })}
        />
        <FolderPicker value={o.folder ?? ""} onValue={(v) => set({ folder: v })} />
        {config.domains.length > 0 && (
          <Field
            label="Domain"
            control={(id) => (
              <select
                id={id}
                value={o.domain ?? ""}
                onChange={(e) => set({ domain: e.currentTarget.value })}
              >
                <option value="">This server</option>
                {config.domains.map((d) => <option key={d} value={d}>{d}</option>)}
              </select>
            )}
          />
        )}
        <TextField
          label="Password (not remembered)"
          type="password"
          autocomplete="new-password"
          value={o.password ?? ""}
          onValue={(v) => set({ password: v })}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={o.originalName ?? false}
            onChange={(e) => set({ originalName: e.currentTarget.checked })}
          />
          Keep the original name
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={o.uploadOnDrop ?? false}
            onChange={(e) => set({ uploadOnDrop: e.currentTarget.checked })}
          />
          Upload as soon as files are dropped
        </label>
      </div>
      <div class="button-row">
        <button type="button" onClick={clear} disabled={!saved.value && !o.password}>
          Clear options
        </button>
        <span class="muted small">
          {saved.value ? "Saved in this browser." : "Options you set are kept in this browser."}
        </span>
      </div>
    </details>
  );
}
