/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/folders`: the caller's folders as a tree: create, rename, move,
 * make public, accept anonymous uploads, copy the public page's link,
 * download as zip, delete; each links to its files.
 */
import { useEffect, useState } from "preact/hooks";
import {
  changeFolder,
  createFolder,
  deleteFolder,
  type Folder as ApiFolder,
  type FolderChange,
  folderZipUrl,
  listFolders,
} from "../api/files.ts";
import { ShareDialog } from "../components/share_dialog.tsx";
import { Icon, IconButton } from "../icons.tsx";
import { Field, TextField } from "../components/field.tsx";
import { LinkTools } from "../components/link_tools.tsx";
import { confirmAction } from "../components/feedback.tsx";

/** `folders` in tree order, each with its depth. */
function treeOrder(folders: ApiFolder[]): { folder: ApiFolder; depth: number }[] {
  const children = new Map<string | null, ApiFolder[]>();
  for (const f of folders) {
    const parent = folders.some((p) => p.id === f.parentId) ? f.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), f]);
  }
  const out: { folder: ApiFolder; depth: number }[] = [];
  const walk = (parent: string | null, depth: number) => {
    const level = [...(children.get(parent) ?? [])].sort((a, b) => a.name.localeCompare(b.name));
    for (const folder of level) {
      out.push({ folder, depth });
      walk(folder.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

/** The ids of `id` and every folder below it (a folder cannot move into these). */
function subtree(folders: ApiFolder[], id: string): Set<string> {
  const ids = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const f of folders) {
      if (f.parentId && ids.has(f.parentId) && !ids.has(f.id)) {
        ids.add(f.id);
        grew = true;
      }
    }
  }
  return ids;
}

function FolderRow(
  { folder, depth, all, onChange, onError }: {
    folder: ApiFolder;
    depth: number;
    all: ApiFolder[];
    onChange: () => void;
    onError: (message: string) => void;
  },
) {
  const [name, setName] = useState(folder.name);
  const [open, setOpen] = useState(false);
  // The switches show the change at once; the list reloads when the server has it.
  const [flags, setFlags] = useState({ public: folder.public, allowUploads: folder.allowUploads });
  const [hidden, setHidden] = useState(folder.private === true);
  const [sharing, setSharing] = useState(false);
  const patch = async (body: FolderChange) => {
    try {
      await changeFolder(folder.id, body);
      onChange();
    } catch (e) {
      setFlags({ public: folder.public, allowUploads: folder.allowUploads });
      onError((e as Error).message);
    }
  };
  const remove = async () => {
    const sure = await confirmAction({
      title: "Delete this folder?",
      message: `The folder ${folder.name} goes; its files and subfolders move to the top.`,
      confirm: "Delete",
      deletion: true,
    });
    if (!sure) return;
    try {
      await deleteFolder(folder.id, { childrenAction: "root" });
      onChange();
    } catch (e) {
      onError((e as Error).message);
    }
  };
  const blocked = subtree(all, folder.id);
  const publicLink = `${location.origin}/folder/${encodeURIComponent(folder.id)}`;
  return (
    <li class="card folder-row" style={{ "--depth": depth }}>
      <div class="url-head">
        <Icon name={hidden ? "lock" : "folder"} />
        <strong>{folder.name}</strong>
        <span class="muted">
          {folder._count.files} {folder._count.files === 1 ? "file" : "files"}
        </span>
        <a href={`/dashboard/files?folder=${encodeURIComponent(folder.id)}`}>Files</a>
        <a href={folderZipUrl(folder.id)} download>
          Download zip
        </a>
        <button
          type="button"
          class="icon-button"
          aria-expanded={open}
          aria-label={`Edit ${folder.name}`}
          title="Edit"
          onClick={() => setOpen(!open)}
        >
          <Icon name="edit" />
        </button>
        <IconButton
          icon="link"
          label={`Share ${folder.name}`}
          title="Share"
          onClick={() => setSharing(true)}
        />
        <IconButton
          icon="trash"
          danger
          label={`Delete ${folder.name}`}
          title="Delete"
          onClick={remove}
        />
      </div>
      <div class="url-foot">
        <label class="check">
          <input
            type="checkbox"
            checked={flags.public}
            onChange={(e) => {
              setFlags({ ...flags, public: e.currentTarget.checked });
              patch({ isPublic: e.currentTarget.checked });
            }}
          />
          Public
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={flags.allowUploads}
            onChange={(e) => {
              setFlags({ ...flags, allowUploads: e.currentTarget.checked });
              patch({ allowUploads: e.currentTarget.checked });
            }}
          />
          Anyone may upload
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={hidden}
            onChange={(e) => {
              setHidden(e.currentTarget.checked);
              patch({ private: e.currentTarget.checked });
            }}
          />
          Private
        </label>
      </div>
      {sharing && (
        <ShareDialog
          target={{ kind: "folder", id: folder.id, name: folder.name }}
          onClose={() => setSharing(false)}
        />
      )}
      {(flags.public || flags.allowUploads) && (
        <LinkTools href={publicLink} name={`the public page of ${folder.name}`} />
      )}
      {open && (
        <form
          class="edit options-grid"
          aria-label={`Edit ${folder.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            patch({ name });
          }}
        >
          <label class="field">
            <span>Name</span>
            <input type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit">Rename</button>
          <Field
            label="Move into"
            control={(id) => (
              <select
                id={id}
                value={folder.parentId ?? ""}
                onChange={(e) => patch({ parentId: e.currentTarget.value || null })}
              >
                <option value="">Top level</option>
                {all.filter((f) => !blocked.has(f.id)).map((f) => (
                  <option key={f.id} value={f.id}>{f.name}</option>
                ))}
              </select>
            )}
          />
        </form>
      )}
    </li>
  );
}

/** The folders page. */
export function FoldersPage() {
  const [folders, setFolders] = useState<ApiFolder[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [parent, setParent] = useState("");
  const [isPublic, setPublic] = useState(false);
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((v) => v + 1);
  useEffect(() => {
    listFolders().then(
      setFolders,
      (e: Error) => setError(e.message),
    );
  }, [version]);
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      await createFolder({
        name,
        isPublic,
        ...(parent ? { parentId: parent } : {}),
      });
      setName("");
      setError(null);
      reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <>
      <h1>Folders</h1>
      <form class="card" onSubmit={create} aria-label="New folder">
        <h2>New folder</h2>
        <div class="options-grid">
          <TextField
            label="Folder name"
            type="text"
            required
            value={name}
            onValue={setName}
          />
          <Field
            label="Inside"
            control={(id) => (
              <select
                id={id}
                value={parent}
                onChange={(e) => setParent(e.currentTarget.value)}
              >
                <option value="">Top level</option>
                {(folders ?? []).map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
              </select>
            )}
          />
          <label class="check">
            <input
              type="checkbox"
              checked={isPublic}
              onChange={(e) => setPublic(e.currentTarget.checked)}
            />
            Public
          </label>
        </div>
        <button type="submit" class="primary">Create folder</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      {folders && folders.length === 0 && <p class="muted">No folders yet.</p>}
      {folders && folders.length > 0 && (
        <ul class="url-list" aria-label="Folders">
          {treeOrder(folders).map(({ folder, depth }) => (
            <FolderRow
              key={folder.id}
              folder={folder}
              depth={depth}
              all={folders}
              onChange={reload}
              onError={setError}
            />
          ))}
        </ul>
      )}
    </>
  );
}
