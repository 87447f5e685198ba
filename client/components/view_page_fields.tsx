/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * What a user's file pages (`/view/<name>`) show around the file, the
 * `view` settings of `PATCH /api/user` that Zipline's "Viewing files" form
 * edits: whether text files open as a page, the type, the tags, the folder,
 * and a text of one's own under the file (Markdown, with placeholders),
 * aligned left, centre or right. Part of the file pages and embeds form
 * (`embed_form.tsx`), which saves them.
 */
import type { MeChange } from "../api/account.ts";
import { SelectField } from "./field.tsx";

/** The view settings, as `PATCH /api/user` takes them. */
export type ViewSettings = NonNullable<MeChange["view"]>;

/** The alignments of the text under the file. */
const ALIGNMENTS = [["left", "Left"], ["center", "Centre"], ["right", "Right"]] as const;

/** The placeholders the text may hold, filled in on each file's page. */
export const PAGE_PLACEHOLDERS = [
  "{file.name}",
  "{file.originalName}",
  "{file.size}",
  "{file.type}",
  "{file.views}",
  "{file.id}",
  "{user.username}",
  "{link.returned}",
  "{link.raw}",
];

/** The fields of the file's page, editing `view` through `onChange`. */
export function ViewPageFields(
  { view, onChange }: { view: ViewSettings; onChange: (view: ViewSettings) => void },
) {
  const flag = (
    key: "disableTextFiles" | "showMimetype" | "showTags" | "showFolder",
    label: string,
  ) => (
    <label class="check">
      <input
        type="checkbox"
        checked={view[key] === true}
        onChange={(e) => onChange({ ...view, [key]: e.currentTarget.checked })}
      />
      {label}
    </label>
  );
  return (
    <fieldset class="view-page-fields">
      <legend>The file's page</legend>
      <div class="options-grid">
        {flag("disableTextFiles", "Text files open as raw text, not as a page")}
        {flag("showMimetype", "Show the file's type")}
        {flag("showTags", "Show the file's tags")}
        {flag("showFolder", "Show the file's folder")}
      </div>
      <label class="field">
        <span>Text under the file (Markdown)</span>
        <textarea
          rows={4}
          maxLength={10_000}
          placeholder="Uploaded by {user.username}."
          aria-describedby="view-content-hint"
          value={view.content ?? ""}
          onInput={(e) => onChange({ ...view, content: e.currentTarget.value || null })}
        />
      </label>
      <p id="view-content-hint" class="muted">
        Placeholders: {PAGE_PLACEHOLDERS.join(", ")}. Raw HTML is shown as text.
      </p>
      <SelectField
        label="Alignment of the text"
        value={view.align ?? "left"}
        onValue={(align) => onChange({ ...view, align: align as ViewSettings["align"] })}
        options={ALIGNMENTS}
      />
    </fieldset>
  );
}
