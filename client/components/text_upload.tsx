/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The pastebin: a text or code snippet, its language chosen from every
 * language highlight.js knows (a searchable list), Tab that indents (Escape
 * then Tab leaves the box), and a Preview tab that shows it as its page will
 * (highlighted, or Markdown rendered). Sent as a file through the upload
 * queue, named after the language.
 */
import { useRef, useState } from "preact/hooks";
import type { PageConfig } from "../config.ts";
import { LANGUAGES } from "../text/languages.ts";
import { extensionOf } from "../text/kind.ts";
import { indent } from "../text/indent.ts";
import { uploadOptions } from "./options_form.tsx";
import { enqueue } from "./uploads.tsx";
import { TextView } from "./text_view.tsx";

const PLAIN = "Plain text";
/** A language's name as the picker shows it, to its id. */
const BY_NAME = new Map(LANGUAGES.map(([id, name]) => [name.toLowerCase(), id]));
for (const [id] of LANGUAGES) if (!BY_NAME.has(id)) BY_NAME.set(id, id);

/** The id a picker entry names (a language's name or id), `null` for plain text, `undefined` if none. */
function chosen(entry: string): string | null | undefined {
  const key = entry.trim().toLowerCase();
  if (key === "" || key === PLAIN.toLowerCase() || key === "plaintext") return null;
  return BY_NAME.get(key);
}

/** `name` with the extension of `language` in place of its own. */
function renamed(name: string, language: string | null): string {
  const stem = name.includes(".") ? name.slice(0, name.lastIndexOf(".")) : name;
  return `${stem || "snippet"}.${language ? extensionOf(language) : "txt"}`;
}

/** The snippet form. */
export function TextUpload({ config }: { config: PageConfig }) {
  const [name, setName] = useState("snippet.txt");
  const [entry, setEntry] = useState(PLAIN);
  const [text, setText] = useState("");
  const [tab, setTab] = useState<"write" | "preview">("write");
  const escaped = useRef(false);
  const language = chosen(entry);

  const pick = (value: string) => {
    setEntry(value);
    const id = chosen(value);
    if (id !== undefined) setName(renamed(name, id));
  };
  const keyDown = (event: KeyboardEvent) => {
    const box = event.currentTarget as HTMLTextAreaElement;
    if (event.key === "Escape") {
      escaped.current = true;
      return;
    }
    if (event.key !== "Tab" || escaped.current) {
      escaped.current = false;
      return;
    }
    event.preventDefault();
    const edited = indent(box.value, box.selectionStart, box.selectionEnd, event.shiftKey);
    box.value = edited.text;
    box.setSelectionRange(edited.start, edited.end);
    setText(edited.text);
  };
  const submit = (event: Event) => {
    event.preventDefault();
    if (text === "") return;
    // Plain text whatever the name says: a snippet is shown, never run (the name picks the
    // highlighting on its page).
    const file = new File([text], name.trim() || "snippet.txt", { type: "text/plain" });
    enqueue([file], uploadOptions.value, config.chunkSize);
    setText("");
    setTab("write");
  };
  return (
    <form class="card text-upload" onSubmit={submit} aria-label="Text or code">
      <h2>Text or code</h2>
      <div class="text-upload-head">
        <label class="field">
          <span>File name</span>
          <input type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Language</span>
          <input
            type="search"
            list="languages"
            value={entry}
            placeholder="Search languages…"
            aria-invalid={language === undefined}
            onInput={(e) => pick(e.currentTarget.value)}
          />
          <datalist id="languages">
            <option value={PLAIN} />
            {LANGUAGES.map(([id, title, aliases]) => (
              <option key={id} value={title}>{[id, ...aliases].join(", ")}</option>
            ))}
          </datalist>
        </label>
      </div>
      <div class="tabs" role="tablist" aria-label="Write or preview">
        {(["write", "preview"] as const).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`text-tab-${t}`}
            aria-selected={tab === t}
            aria-controls={`text-panel-${t}`}
            onClick={() => setTab(t)}
          >
            {t === "write" ? "Write" : "Preview"}
          </button>
        ))}
      </div>
      {tab === "write"
        ? (
          <div role="tabpanel" id="text-panel-write" aria-labelledby="text-tab-write">
            <label class="field">
              <span>Text</span>
              <textarea
                class="code-input"
                rows={12}
                spellcheck={false}
                value={text}
                aria-describedby="tab-hint"
                onInput={(e) => setText(e.currentTarget.value)}
                onKeyDown={keyDown}
              />
            </label>
            <p id="tab-hint" class="muted small">Tab indents; Escape then Tab leaves the box.</p>
          </div>
        )
        : (
          <div role="tabpanel" id="text-panel-preview" aria-labelledby="text-tab-preview">
            {text === "" ? <p class="muted">Nothing to preview yet.</p> : (
              <TextView
                label="Preview"
                source={{ text, name, type: "text/plain", language: language ?? null }}
              />
            )}
          </div>
        )}
      <button type="submit" class="primary" disabled={text === ""}>Upload text</button>
    </form>
  );
}
