/** @jsxImportSource hono/jsx */
/**
 * A file's page, `/view/<name>`: its name, size and views, and the file
 * itself (an image, a video, audio, or the start of a text file) with a
 * download link. A text file is shown by `/assets/text_view.js` (loaded by
 * this page only): highlighted with line numbers, or Markdown rendered and
 * sanitised, with a copy button and a link to the raw text. The bytes always come from `/raw/<name>`, which counts the
 * view and checks the password. A protected file first shows a password form;
 * `/assets/ferry.js` sends it to `POST /api/user/files/<id>/password`, whose
 * cookie opens the file when the page reloads.
 */
import type { FileRecord } from "../../db/files.ts";
import type { FileEmbed } from "../../core/files/embed.ts";
import { storedType } from "../../core/files/media_type.ts";
import { formatSize } from "../../core/units/size.ts";
import { useContext } from "hono/jsx";
import { assetPath } from "./assets.ts";
import { Layout, ScriptNonce } from "./layout.tsx";

/** How many bytes of a text file the page shows. */
export const TEXT_PREVIEW_BYTES = 256 * 1024;

/** What the page shows of a file. */
export interface ViewPageProps {
  site: string;
  file: FileRecord;
  /** The password is still to be given. */
  locked: boolean;
  /** The card a chat shows for a link to the page, from the owner's embed settings. */
  embed?: FileEmbed | null;
  /** Where the bytes are read (a share link's); `/raw/<name>` by default. */
  raw?: string;
}

/** OpenGraph and Twitter card tags of `embed`. */
function CardTags({ embed, title }: { embed: FileEmbed; title: string }) {
  const media = embed.media;
  return (
    <>
      <meta property="og:type" content={media?.kind === "video" ? "video.other" : "website"} />
      <meta property="og:title" content={embed.title ?? title} />
      {embed.description && <meta property="og:description" content={embed.description} />}
      {embed.siteName && <meta property="og:site_name" content={embed.siteName} />}
      {embed.color && <meta name="theme-color" content={embed.color} />}
      {media?.kind === "image" && <meta property="og:image" content={media.url} />}
      {media?.kind === "video" && <meta property="og:video" content={media.url} />}
      {media?.kind === "video" && <meta property="og:video:type" content={media.type} />}
      {media?.kind === "audio" && <meta property="og:audio" content={media.url} />}
      <meta
        name="twitter:card"
        content={media?.kind === "image" ? "summary_large_image" : "summary"}
      />
      <meta name="twitter:title" content={embed.title ?? title} />
      {media?.kind === "image" && <meta name="twitter:image" content={media.url} />}
    </>
  );
}

/** The file page. */
export function ViewPage({ site, file, locked, embed, raw: source }: ViewPageProps) {
  const shown = file.originalName ?? file.name;
  if (locked) {
    return (
      <Layout site={site} title={shown}>
        <h1>{shown}</h1>
        <form id="file-password-form" class="card" data-file={file.id}>
          <p>This file is protected by a password.</p>
          <label for="file-password">Password</label>
          <input id="file-password" type="password" autocomplete="off" required />
          <button type="submit">Open</button>
        </form>
      </Layout>
    );
  }
  const raw = source ?? `/raw/${encodeURIComponent(file.name)}`;
  const views = file.maxViews === null ? `${file.views}` : `${file.views} of ${file.maxViews}`;
  const text = storedType(file.type).startsWith("text/");
  const head = (
    <>
      {embed && <CardTags embed={embed} title={shown} />}
      {text && <TextViewScript />}
    </>
  );
  return (
    <Layout site={site} title={shown} head={head}>
      <h1 id="file-name">{shown}</h1>
      <div class="card file-preview">
        <Preview file={file} raw={raw} />
      </div>
      <dl class="file-facts">
        <dt>Size</dt>
        <dd id="file-size">{formatSize(file.size)}</dd>
        <dt>Type</dt>
        <dd>{storedType(file.type)}</dd>
        <dt>Views</dt>
        <dd id="file-views">{views}</dd>
      </dl>
      <p class="button-row">
        <a id="file-download" class="button" href={`${raw}?download=true`}>Download</a>
        {text && <a id="file-raw" class="button" href={raw}>Raw</a>}
      </p>
    </Layout>
  );
}

/** The script of a text file's page, under the response's nonce. */
function TextViewScript() {
  const nonce = useContext(ScriptNonce);
  return <script type="module" src={assetPath("text_view.js")} nonce={nonce} />;
}

/** The file itself, where a browser can show it without running it. */
export function Preview({ file, raw }: { file: FileRecord; raw: string }) {
  const type = storedType(file.type);
  if (type.startsWith("image/") && !type.startsWith("image/svg")) {
    return <img id="file-image" src={raw} alt={file.originalName ?? file.name} />;
  }
  if (type.startsWith("video/")) return <video id="file-video" src={raw} controls />;
  if (type.startsWith("audio/")) return <audio id="file-audio" src={raw} controls />;
  if (type.startsWith("text/")) {
    return (
      <>
        <div class="text-toolbar">
          <button type="button" id="copy-text" class="button" disabled>Copy text</button>
          <span id="copy-status" class="muted" role="status" />
        </div>
        <div
          id="text-preview"
          data-src={raw}
          data-limit={TEXT_PREVIEW_BYTES}
          data-name={file.originalName ?? file.name}
          data-type={type}
          aria-busy="true"
        >
          Loading…
        </div>
      </>
    );
  }
  return <p>No preview for this kind of file.</p>;
}

/** The page of a file that is not there (missing, expired, or used up). */
export function FileNotFoundPage({ site }: { site: string }) {
  return (
    <Layout site={site} title="Not found">
      <h1>File not found</h1>
      <p>It may have expired, been deleted, or reached its view limit.</p>
    </Layout>
  );
}
