/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * One file's panel, a modal dialog: a preview (image, video, audio, PDF,
 * text highlighted, Markdown rendered, TeX typeset by KaTeX, an asciinema
 * recording played), its link and its raw link to copy,
 * and what its owner may change: favourite, name, original name, type,
 * password, max views, tags, folder (a new one made in place); its visits
 * (a dialog, loaded on demand); and delete.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import {
  type ApiFile,
  changeFile,
  changeFiles,
  deleteFile,
  listTags,
  publicRawUrl,
  rawUrl,
  removeFromFolder,
  type Tag,
} from "../api/files.ts";
import { formatBytes, formatDate } from "../format.ts";
import { Icon } from "../icons.tsx";
import { CopyButton } from "./copy_button.tsx";
import { FolderPicker } from "./folder_picker.tsx";
import { LinkTools } from "./link_tools.tsx";
import { TextView } from "./text_view.tsx";
import { showCast } from "../text/asciicast.ts";
import { isAsciicast, isTex } from "../text/kind.ts";
import { confirmAction, withToast } from "./feedback.tsx";
import { PanelDialog } from "./panel_dialog.tsx";
import { ShareDialog } from "./share_dialog.tsx";
import { VisitsDialog } from "./visits_loader.tsx";

/** The owner's address of the file's bytes. */
const rawPath = (file: ApiFile) => rawUrl(file);

/** The first 64 KiB of a text file, highlighted where it is code, Markdown rendered. */
function TextPreview({ file }: { file: ApiFile }) {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    fetch(rawPath(file), { headers: { range: "bytes=0-65535" }, credentials: "same-origin" })
      .then((res) => res.text()).then(setText, () => setText(null));
  }, [file.id]);
  if (text === null) return <p class="muted">Loading…</p>;
  return (
    <TextView
      label={`Text of ${file.name}`}
      source={{ text, name: file.originalName ?? file.name, type: file.type }}
    />
  );
}

/** The largest recording the panel plays (it is read whole); a larger one is downloaded. */
const CAST_LIMIT = 8 * 1024 * 1024;

/** An asciinema recording, read whole from the owner's raw route and played. */
function CastPreview({ file }: { file: ApiFile }) {
  const target = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<"loading" | "playing" | string>("loading");
  const tooLarge = file.size > CAST_LIMIT;
  useEffect(() => {
    const element = target.current;
    if (!element || tooLarge) return;
    fetch(rawPath(file), { credentials: "same-origin" })
      .then((res) =>
        res.ok ? res.text() : Promise.reject(new Error(`The server answered ${res.status}`))
      )
      .then((text) => showCast(element, text))
      .then(() => setState("playing"), (error: Error) => setState(error.message));
  }, [file.id]);
  if (tooLarge) return <p class="muted">This recording is too large to play here; download it.</p>;
  return (
    <div class="cast-frame" role="region" aria-label={`Recording ${file.name}`}>
      {state === "loading" && <p class="muted">Loading the recording…</p>}
      {state !== "loading" && state !== "playing" && <p role="alert">{state}</p>}
      {/* The player owns this element's children; Preact renders none in it. */}
      <div ref={target} class="cast-view" />
    </div>
  );
}

function Preview({ file }: { file: ApiFile }) {
  const type = file.type;
  if (file.password) {
    // The bytes need the password, even for the owner (as in Zipline).
    return (
      <div class="thumb icon-thumb locked">
        <Icon name="lock" size={36} />
        <span>Protected by a password</span>
      </div>
    );
  }
  if (type.startsWith("image/") && type !== "image/svg+xml") {
    return <img class="preview" src={rawPath(file)} alt={`Preview of ${file.name}`} />;
  }
  if (type.startsWith("video/")) {
    return <video class="preview" src={rawPath(file)} controls preload="metadata" />;
  }
  if (type.startsWith("audio/")) return <audio src={rawPath(file)} controls preload="metadata" />;
  if (type === "application/pdf") {
    return <iframe class="preview pdf" src={rawPath(file)} title={`Preview of ${file.name}`} />;
  }
  if (isAsciicast(file.name, type)) return <CastPreview file={file} />;
  if (type.startsWith("text/") || type === "application/json" || isTex(file.name, type)) {
    return <TextPreview file={file} />;
  }
  return (
    <div class="thumb icon-thumb">
      <Icon name="file" size={48} />
    </div>
  );
}

/** What the edit form holds. */
interface Edit {
  name: string;
  originalName: string;
  password: string;
  removePassword: boolean;
  maxViews: string;
  type: string;
  tags: string[];
  folder: string;
  private: boolean;
}

/** The panel of `file`; `onClose` is told whether anything changed. */
export function FilePanel(
  { file, onClose }: { file: ApiFile; onClose: (changed: boolean) => void },
) {
  const [tags, setTags] = useState<Tag[]>([]);
  const [favorite, setFavorite] = useState(file.favorite);
  const [edit, setEdit] = useState<Edit>({
    name: file.name,
    originalName: file.originalName ?? "",
    password: "",
    removePassword: false,
    maxViews: file.maxViews === null ? "" : String(file.maxViews),
    type: file.type,
    tags: (file.tags ?? []).map((t) => t.id),
    folder: file.folderId ?? "",
    private: file.private === true,
  });
  const [sharing, setSharing] = useState(false);
  const [visits, setVisits] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [changed, setChanged] = useState(false);

  useEffect(() => {
    listTags().then(setTags, () => {});
  }, []);

  const close = () => onClose(changed);
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await changeFile(file.id, {
        ...(edit.name !== file.name ? { name: edit.name } : {}),
        ...(edit.type.trim() !== file.type ? { type: edit.type.trim() } : {}),
        originalName: edit.originalName.trim() || null,
        maxViews: edit.maxViews === "" ? null : Number(edit.maxViews),
        tags: edit.tags,
        private: edit.private,
        ...(edit.removePassword ? { password: null } : {}),
        ...(edit.password ? { password: edit.password } : {}),
      });
      if (edit.folder !== (file.folderId ?? "")) {
        if (edit.folder) await changeFiles([file.id], { folder: edit.folder });
        else if (file.folderId) await removeFromFolder(file.folderId, file.id);
      }
      setChanged(true);
      setError(null);
      onClose(true);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const remove = async () => {
    const sure = await confirmAction({
      title: "Delete this file?",
      message: `${file.name} and its link go for good.`,
      confirm: "Delete",
      deletion: true,
    });
    if (!sure) return;
    const deleted = await withToast(
      `Deleted ${file.name}.`,
      () => deleteFile(file.id),
    );
    if (!deleted) return;
    onClose(true);
  };
  const toggleFavorite = async () => {
    const next = !favorite;
    if (
      await withToast(
        next ? "Added to favourites." : "Removed from favourites.",
        () => changeFile(file.id, { favorite: next }),
      )
    ) {
      setFavorite(next);
      setChanged(true);
    }
  };
  const toggleTag = (id: string) =>
    setEdit({
      ...edit,
      tags: edit.tags.includes(id) ? edit.tags.filter((t) => t !== id) : [...edit.tags, id],
    });

  return (
    <PanelDialog
      id="panel-title"
      title={
        <>
          {file.private && (
            <span class="private-mark" title="Private" aria-label="Private">
              <Icon name="lock" />
            </span>
          )}
          {file.name}
        </>
      }
      actions={
        <button
          type="button"
          class={favorite ? "icon-button panel-favourite active" : "icon-button panel-favourite"}
          aria-pressed={favorite}
          aria-label="Favourite"
          title="Favourite"
          onClick={toggleFavorite}
        >
          <Icon name="star" />
        </button>
      }
      onClose={close}
    >
      <div class="panel-body">
        <div class="panel-preview">
          <Preview file={file} />
          <LinkTools href={new URL(file.url, location.origin).href} name={file.name} />
          <div class="raw-link">
            <span class="muted small">Raw: {publicRawUrl(file)}</span>
            <CopyButton text={publicRawUrl(file)} label={`Copy raw link to ${file.name}`} />
          </div>
          <div class="button-row">
            <a class="button" href={rawUrl(file, true)} download>
              <Icon name="download" /> Download
            </a>
            <button type="button" onClick={() => setSharing(true)}>
              <Icon name="link" /> Share
            </button>
            <button type="button" onClick={() => setVisits(true)}>
              <Icon name="visits" /> Visits
            </button>
            <button type="button" class="danger" onClick={remove}>Delete</button>
          </div>
          {sharing && (
            <ShareDialog
              target={{ kind: "file", id: file.id, name: file.name }}
              onClose={() => setSharing(false)}
            />
          )}
          {visits && (
            <VisitsDialog
              of={{ kind: "file", id: file.id }}
              name={file.name}
              onClose={() => setVisits(false)}
            />
          )}
          <dl class="file-facts">
            <dt>Type</dt>
            <dd>{file.type}</dd>
            <dt>Size</dt>
            <dd>{formatBytes(file.size)}</dd>
            <dt>Views</dt>
            <dd>{file.views}{file.maxViews !== null && ` of ${file.maxViews}`}</dd>
            <dt>Uploaded</dt>
            <dd>{formatDate(file.createdAt)}</dd>
            <dt>Changed</dt>
            <dd>{formatDate(file.updatedAt)}</dd>
            <dt>Expires</dt>
            <dd>{file.deletesAt ? formatDate(file.deletesAt) : "never"}</dd>
          </dl>
        </div>
        <form class="panel-form" onSubmit={save} aria-label={`Edit ${file.name}`}>
          <label class="field">
            <span>Name</span>
            <input
              type="text"
              value={edit.name}
              onInput={(e) => setEdit({ ...edit, name: e.currentTarget.value })}
            />
          </label>
          <label class="field">
            <span>Original name</span>
            <input
              type="text"
              value={edit.originalName}
              onInput={(e) => setEdit({ ...edit, originalName: e.currentTarget.value })}
            />
          </label>
          <label class="field">
            <span>Type</span>
            <input
              type="text"
              value={edit.type}
              onInput={(e) => setEdit({ ...edit, type: e.currentTarget.value })}
            />
          </label>
          <label class="field">
            <span>{file.password ? "New password" : "Password"}</span>
            <input
              type="password"
              autoComplete="new-password"
              value={edit.password}
              onInput={(e) => setEdit({ ...edit, password: e.currentTarget.value })}
            />
          </label>
          {file.password && (
            <label class="check">
              <input
                type="checkbox"
                checked={edit.removePassword}
                onChange={(e) => setEdit({ ...edit, removePassword: e.currentTarget.checked })}
              />
              Remove the password
            </label>
          )}
          <label class="check">
            <input
              type="checkbox"
              checked={edit.private}
              onChange={(e) => setEdit({ ...edit, private: e.currentTarget.checked })}
            />
            Private (only you, signed in, and share links)
          </label>
          <label class="field">
            <span>Max views</span>
            <input
              type="number"
              min={0}
              value={edit.maxViews}
              onInput={(e) => setEdit({ ...edit, maxViews: e.currentTarget.value })}
            />
          </label>
          <FolderPicker value={edit.folder} onValue={(v) => setEdit({ ...edit, folder: v })} />
          {tags.length > 0 && (
            <fieldset class="tag-choices">
              <legend>Tags</legend>
              {tags.map((tag) => (
                <label key={tag.id} class="check">
                  <input
                    type="checkbox"
                    checked={edit.tags.includes(tag.id)}
                    onChange={() => toggleTag(tag.id)}
                  />
                  <span class="swatch" style={{ background: tag.color }} />
                  {tag.name}
                </label>
              ))}
            </fieldset>
          )}
          {error && <p class="error" role="alert">{error}</p>}
          <button type="submit" class="primary">Save</button>
        </form>
      </div>
    </PanelDialog>
  );
}
