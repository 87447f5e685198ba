/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/upload`: the uploader, and a text or code snippet uploaded as a
 * file; `/dashboard/upload/text`: the snippet alone.
 */
import { useState } from "preact/hooks";
import type { PageConfig } from "../config.ts";
import { Uploader } from "../components/uploader.tsx";
import { uploadOptions, UploadOptionsForm } from "../components/options_form.tsx";
import { enqueue, UploadList } from "../components/uploads.tsx";

/** The snippet form: a name and the text, sent as a file through the same queue. */
function TextUpload({ config }: { config: PageConfig }) {
  const [name, setName] = useState("snippet.txt");
  const [text, setText] = useState("");
  const submit = (event: Event) => {
    event.preventDefault();
    if (text === "") return;
    // Plain text whatever the name says: a snippet is shown, never run (the name picks the
    // highlighting in its preview).
    const file = new File([text], name.trim() || "snippet.txt", { type: "text/plain" });
    enqueue([file], uploadOptions.value, config.chunkSize);
    setText("");
  };
  return (
    <form class="card text-upload" onSubmit={submit}>
      <h2>Text or code</h2>
      <label class="field">
        <span>File name</span>
        <input type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>Text</span>
        <textarea
          rows={8}
          spellcheck={false}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
      <button type="submit" class="primary" disabled={text === ""}>Upload text</button>
    </form>
  );
}

/** The upload page; with `text`, `/dashboard/upload/text`: the text form only. */
export function UploadPage({ config, text }: { config: PageConfig; text?: boolean }) {
  if (text) {
    return (
      <>
        <h1>Upload text</h1>
        <div class="uploader">
          <UploadOptionsForm config={config} />
          <TextUpload config={config} />
          <UploadList />
        </div>
      </>
    );
  }
  return (
    <>
      <h1>Upload</h1>
      <Uploader config={config} />
      <TextUpload config={config} />
    </>
  );
}
