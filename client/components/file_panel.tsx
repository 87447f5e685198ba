/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * One file's panel, a modal dialog: a preview (image, video, audio, text,
 * PDF), its link, and what its owner may change: name, original name,
 * password, max views, tags, folder, favourite; and delete.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type ApiFile } from "../api.ts";
import { formatBytes, formatDate } from "../format.ts";
import { Icon } from "../icons.tsx";
import { Field } from "./field.tsx";
import { LinkTools } from "./link_tools.tsx";
import { TextView } from "./text_view.tsx";
import { confirmAction, trapFocus, withToast } from "./feedback.tsx";

/** The owner's address of the file's bytes. */
function rawPath(file: ApiFile): string {
  return `/api/user/files/${encodeURIComponent(file.id)}/raw`;
}

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
  if (type.startsWith("text/") || type === "application/json") return <TextPreview file={file} />;
  return (
    <div class="thumb icon-thumb">
      <Icon name="file" size={48} />
    </div>
  );
}

interface Tag {
  id: string;
  name: string;
  color: string;
}

interface Folder {
  id: string;
  name: string;
}

/** What the edit form holds. */
interface Edit {
  name: string;
  originalName: string;
  password: string;
  removePassword: boolean;
  maxViews: string;
  tags: string[];
  folder: string;
}

/** The panel of `file`; `onClose` is told whether anything changed. */
export function FilePanel(
  { file, onClose }: { file: ApiFile & { tags?: Tag[] }; onClose: (changed: boolean) => void },
) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [tags, setTags] = useState<Tag[]>([]);
  const [folders, setFolders] = useState<Folder[]>([]);
  const [edit, setEdit] = useState<Edit>({
    name: file.name,
    originalName: file.originalName ?? "",
    password: "",
    removePassword: false,
    maxViews: file.maxViews === null ? "" : String(file.maxViews),
    tags: (file.tags ?? []).map((t) => t.id),
    folder: file.folderId ?? "",
  });
  const [error, setError] = useState<string | null>(null);
  const [changed, setChanged] = useState(false);

  useEffect(() => {
    dialog.current?.showModal();
    api<Tag[]>("GET", "/api/user/tags").then(setTags, () => {});
    api<Folder[]>("GET", "/api/user/folders?noincl=true").then(setFolders, () => {});
  }, []);

  const close = () => {
    dialog.current?.close();
    onClose(changed);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const id = encodeURIComponent(file.id);
      await api("PATCH", `/api/user/files/${id}`, {
        ...(edit.name !== file.name ? { name: edit.name } : {}),
        originalName: edit.originalName.trim() || null,
        maxViews: edit.maxViews === "" ? null : Number(edit.maxViews),
        tags: edit.tags,
        ...(edit.removePassword ? { password: null } : {}),
        ...(edit.password ? { password: edit.password } : {}),
      });
      if (edit.folder !== (file.folderId ?? "")) {
        if (edit.folder) {
          await api("PATCH", "/api/user/files/transaction", {
            files: [file.id],
            folder: edit.folder,
          });
        } else {
          await api("DELETE", `/api/user/folders/${file.folderId}`, {
            delete: "file",
            id: file.id,
          });
        }
      }
      setChanged(true);
      setError(null);
      dialog.current?.close();
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
      () => api("DELETE", `/api/user/files/${encodeURIComponent(file.id)}`),
    );
    if (!deleted) return;
    dialog.current?.close();
    onClose(true);
  };
  const toggleTag = (id: string) =>
    setEdit({
      ...edit,
      tags: edit.tags.includes(id) ? edit.tags.filter((t) => t !== id) : [...edit.tags, id],
    });

  return (
    <dialog
      ref={dialog}
      class="file-panel"
      aria-labelledby="panel-title"
      onCancel={(e) => {
        e.preventDefault();
        close();
      }}
      onKeyDown={(e) => trapFocus(e, dialog.current)}
    >
      <div class="panel-head">
        <h2 id="panel-title">{file.name}</h2>
        <button type="button" class="icon-button" aria-label="Close" onClick={close}>
          <Icon name="close" />
        </button>
      </div>
      <div class="panel-body">
        <div class="panel-preview">
          <Preview file={file} />
          <LinkTools href={new URL(file.url, location.origin).href} name={file.name} />
          <div class="button-row">
            <a class="button" href={`${rawPath(file)}?download=true`} download>
              <Icon name="download" /> Download
            </a>
            <button type="button" class="danger" onClick={remove}>Delete</button>
          </div>
          <dl class="file-facts">
            <dt>Type</dt>
            <dd>{file.type}</dd>
            <dt>Size</dt>
            <dd>{formatBytes(file.size)}</dd>
            <dt>Views</dt>
            <dd>{file.views}{file.maxViews !== null && ` of ${file.maxViews}`}</dd>
            <dt>Uploaded</dt>
            <dd>{formatDate(file.createdAt)}</dd>
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
          <label class="field">
            <span>Max views</span>
            <input
              type="number"
              min={0}
              value={edit.maxViews}
              onInput={(e) => setEdit({ ...edit, maxViews: e.currentTarget.value })}
            />
          </label>
          <Field
            label="Folder"
            control={(id) => (
              <select
                id={id}
                value={edit.folder}
                onChange={(e) => setEdit({ ...edit, folder: e.currentTarget.value })}
              >
                <option value="">None</option>
                {folders.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
              </select>
            )}
          />
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
    </dialog>
  );
}
