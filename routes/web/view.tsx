/** @jsxImportSource hono/jsx */
/**
 * A file's page, `/view/<name>`: its name, size and views, and the file
 * itself (an image, a video, audio, the start of a text file, an asciinema
 * recording) with a download link. A text file is shown by
 * `/assets/text_view.js` (loaded by this page only): highlighted with line
 * numbers, Markdown rendered and sanitised, or TeX typeset by KaTeX, with a
 * copy button and a link to the raw text; the same script plays a recording
 * (asciicast) with asciinema's player, from the recording's bytes. The bytes
 * always come from `/raw/<name>`, which counts the view and checks the
 * password. What the owner chose to show with their files (view settings:
 * the type, tags, folder, and their own Markdown under the file, aligned)
 * comes from `core/files/view_page.ts`. A protected file first shows a
 * password form; `/assets/ferry.js` sends it to
 * `POST /api/user/files/<id>/password`, whose cookie opens the file when the
 * page reloads.
 */
import type { FileRecord } from "../../db/files.ts";
import type { FileEmbed } from "../../core/files/embed.ts";
import type { ViewExtras } from "../../core/files/view_page.ts";
import { storedType } from "../../core/files/media_type.ts";
import { formatSize } from "../../core/units/size.ts";
import { useContext } from "hono/jsx";
import { raw as rawHtml } from "hono/html";
import { assetPath } from "./assets.ts";
import { Layout, ScriptNonce } from "./layout.tsx";
import { renderMarkdown } from "./markdown.ts";

/** How many bytes of a text file the page shows. */
export const TEXT_PREVIEW_BYTES = 256 * 1024;
/** The largest asciinema recording the page plays (it is read whole); larger ones are downloaded. */
export const CAST_PREVIEW_BYTES = 8 * 1024 * 1024;

/** The types of TeX sources, typeset by KaTeX like a text file named `.tex`. */
const TEX_TYPES = new Set(["application/x-tex", "application/x-latex"]);

/**
 * What the page's script shows of `file`: a text (code, Markdown, TeX), an
 * asciinema recording (`application/x-asciicast` or a `.cast` name, as
 * Zipline tells them), or nothing (the page shows it without a script).
 */
export function scriptedKind(file: FileRecord): "text" | "cast" | null {
  const type = storedType(file.type);
  const names = [file.name, file.originalName ?? ""];
  if (type === "application/x-asciicast" || names.some((n) => /\.cast$/i.test(n))) return "cast";
  if (type.startsWith("text/") || TEX_TYPES.has(type)) return "text";
  return null;
}

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
  /** What the owner shows with their files (`null`: nothing). */
  extras?: ViewExtras | null;
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
export function ViewPage({ site, file, locked, embed, raw: source, extras }: ViewPageProps) {
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
  const kind = scriptedKind(file);
  const head = (
    <>
      {embed && <CardTags embed={embed} title={shown} />}
      {kind && <TextViewScript />}
    </>
  );
  return (
    <Layout site={site} title={shown} head={head}>
      <h1 id="file-name">{shown}</h1>
      {extras && <FileLabels extras={extras} />}
      <div class="card file-preview">
        <Preview file={file} raw={raw} />
      </div>
      {extras?.content && (
        <div id="view-content" class={`view-content markdown align-${extras.align}`}>
          {rawHtml(renderMarkdown(extras.content))}
        </div>
      )}
      <dl class="file-facts">
        <dt>Size</dt>
        <dd id="file-size">{formatSize(file.size)}</dd>
        {(!extras || extras.type !== null) && (
          <>
            <dt>Type</dt>
            <dd id="file-type">{storedType(file.type)}</dd>
          </>
        )}
        <dt>Views</dt>
        <dd id="file-views">{views}</dd>
      </dl>
      <p class="button-row">
        <a id="file-download" class="button" href={`${raw}?download=true`}>Download</a>
        {kind === "text" && <a id="file-raw" class="button" href={raw}>Raw</a>}
      </p>
    </Layout>
  );
}

/** The tags and the folder the owner shows beside the file's name. */
function FileLabels({ extras }: { extras: ViewExtras }) {
  const tags = extras.tags ?? [];
  if (tags.length === 0 && !extras.folder) return null;
  return (
    <ul id="file-labels" class="file-labels" aria-label="Tags and folder">
      {tags.map((tag) => (
        <li class="file-tag">
          <svg class="tag-dot" viewBox="0 0 10 10" width="10" height="10" aria-hidden="true">
            <circle cx="5" cy="5" r="5" fill={tag.color} />
          </svg>
          {tag.name}
        </li>
      ))}
      {extras.folder && (
        <li class="file-folder">
          Folder: {extras.folder.link
            ? <a href={extras.folder.link}>{extras.folder.name}</a>
            : extras.folder.name}
        </li>
      )}
    </ul>
  );
}

/** The script of a text file's or a recording's page, under the response's nonce. */
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
  const kind = scriptedKind(file);
  if (kind === "cast") {
    if (file.size > CAST_PREVIEW_BYTES) return <p>This recording is too large to play here.</p>;
    return (
      <div
        id="cast-player"
        class="cast-view"
        data-src={raw}
        data-limit={CAST_PREVIEW_BYTES}
        role="region"
        aria-label={`Recording ${file.originalName ?? file.name}`}
        aria-busy="true"
      >
        Loading the recording…
      </div>
    );
  }
  if (kind === "text") {
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
