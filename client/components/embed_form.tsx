/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The view and embed settings of `PATCH /api/user {view}`: whether files get
 * a public page, what that page shows around the file (`view_page_fields.tsx`),
 * and the card a chat shows for a link to one (title, description, site name,
 * colour), with a live preview of that card.
 */
import { useState } from "preact/hooks";
import { updateMe } from "../api/account.ts";
import { Notice } from "./feedback.tsx";
import { PAGE_PLACEHOLDERS, ViewPageFields, type ViewSettings } from "./view_page_fields.tsx";

/** `{file.name}` and the like filled in with an example, as the server will. */
function example(text: string | null | undefined, username: string): string {
  return (text ?? "").replace(/\{([a-zA-Z.]+)\}/g, (whole, key) =>
    ({
      "file.name": "aB3dE9.png",
      "file.originalName": "holiday.png",
      "file.size": "1.2 MB",
      "file.type": "image/png",
      "file.views": "3",
      "user.username": username,
    })[key as string] ?? whole);
}

function Preview({ view, username }: { view: ViewSettings; username: string }) {
  return (
    <div class="embed-preview" aria-label="Preview of the card" role="img">
      <div class="embed-bar" style={{ background: view.embedColor ?? "var(--line)" }} />
      <div class="embed-body">
        {view.embedSiteName && <small>{example(view.embedSiteName, username)}</small>}
        <strong>{example(view.embedTitle, username) || "aB3dE9.png"}</strong>
        {!view.embedMediaOnly && view.embedDescription && (
          <span>{example(view.embedDescription, username)}</span>
        )}
        <div class="embed-image">image</div>
      </div>
    </div>
  );
}

/** The form, starting from the user's `initial` settings. */
export function EmbedForm({ initial, username }: { initial: ViewSettings; username: string }) {
  const [view, setView] = useState<ViewSettings>(initial);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const text = (key: keyof ViewSettings, label: string, hint?: string) => (
    <label class="field">
      <span>{label}</span>
      <input
        type="text"
        placeholder={hint}
        value={(view[key] as string | null | undefined) ?? ""}
        onInput={(e) => setView({ ...view, [key]: e.currentTarget.value || null })}
      />
    </label>
  );
  const flag = (key: keyof ViewSettings, label: string) => (
    <label class="check">
      <input
        type="checkbox"
        checked={view[key] === true}
        onChange={(e) => setView({ ...view, [key]: e.currentTarget.checked })}
      />
      {label}
    </label>
  );
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await updateMe({ view });
      setMessage({ ok: true, text: "Saved." });
    } catch (e) {
      setMessage({ ok: false, text: (e as Error).message });
    }
  };
  return (
    <form class="card" onSubmit={save} aria-labelledby="embed-title">
      <h2 id="embed-title">File pages and embeds</h2>
      {flag("enabled", "Links open a page for the file rather than the file itself")}
      <ViewPageFields view={view} onChange={setView} />
      {flag("embed", "Show a card when a link is pasted in a chat")}
      <div class="embed-grid">
        <div class="options-grid">
          {text("embedTitle", "Card title", "{file.name}")}
          {text("embedDescription", "Card description", "Uploaded by {user.username}")}
          {text("embedSiteName", "Site name")}
          <label class="field">
            <span>Colour</span>
            <input
              type="color"
              value={view.embedColor ?? "#2456c7"}
              onInput={(e) => setView({ ...view, embedColor: e.currentTarget.value })}
            />
          </label>
          {flag("embedMediaOnly", "Only the media, no description")}
        </div>
        <Preview view={view} username={username} />
      </div>
      <p class="muted">Placeholders: {PAGE_PLACEHOLDERS.join(", ")}.</p>
      <Notice message={message} />
      <button type="submit" class="primary">Save</button>
    </form>
  );
}
