/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/upload`: the uploader, and a text or code snippet uploaded as a
 * file; `/dashboard/upload/text`: the snippet alone.
 */
import type { PageConfig } from "../config.ts";
import { Uploader } from "../components/uploader.tsx";
import { UploadOptionsForm } from "../components/options_form.tsx";
import { TextUpload } from "../components/text_upload.tsx";
import { UploadList } from "../components/uploads.tsx";

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
