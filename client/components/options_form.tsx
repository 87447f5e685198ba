/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The upload options a person may set before dropping files, as Zipline
 * offers them: name format, expiry, password, max views, folder, original
 * name and domain. Kept in a signal so every drop uses what the form shows.
 */
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import type { PageConfig } from "../config.ts";
import type { UploadOptions } from "../upload_options.ts";
import { Field } from "./field.tsx";

/** The options the next upload uses. */
export const uploadOptions = signal<UploadOptions>({});

function set(change: Partial<UploadOptions>): void {
  uploadOptions.value = { ...uploadOptions.value, ...change };
}

/** The options form. */
export function UploadOptionsForm({ config }: { config: PageConfig }) {
  const [folders, setFolders] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    api<{ id: string; name: string }[]>("GET", "/api/user/folders").then(setFolders, () => {});
  }, []);
  const o = uploadOptions.value;
  return (
    <details class="options">
      <summary>Upload options</summary>
      <div class="options-grid">
        <Field
          label="Name format"
          control={(id) => (
            <select
              id={id}
              value={o.format ?? ""}
              onChange={(e) => set({ format: e.currentTarget.value })}
            >
              <option value="">Server default</option>
              {config.formats.map((f) => <option key={f} value={f}>{f}</option>)}
            </select>
          )}
        />
        <Field
          label="Expires after"
          control={(id) => (
            <input
              id={id}
              type="text"
              placeholder="never, 1h, 7d…"
              value={o.deletesAt ?? ""}
              onInput={(e) => set({ deletesAt: e.currentTarget.value })}
            />
          )}
        />
        <Field
          label="Password"
          control={(id) => (
            <input
              id={id}
              type="password"
              autoComplete="new-password"
              value={o.password ?? ""}
              onInput={(e) => set({ password: e.currentTarget.value })}
            />
          )}
        />
        <Field
          label="Max views"
          control={(id) => (
            <input
              id={id}
              type="number"
              min={0}
              value={o.maxViews ?? ""}
              onInput={(e) => set({ maxViews: e.currentTarget.value })}
            />
          )}
        />
        <Field
          label="Folder"
          control={(id) => (
            <select
              id={id}
              value={o.folder ?? ""}
              onChange={(e) => set({ folder: e.currentTarget.value })}
            >
              <option value="">None</option>
              {folders.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
            </select>
          )}
        />
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
        <label class="check">
          <input
            type="checkbox"
            checked={o.originalName ?? false}
            onChange={(e) => set({ originalName: e.currentTarget.checked })}
          />
          Keep the original name
        </label>
      </div>
    </details>
  );
}
