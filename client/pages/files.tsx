/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/files`: the caller's files a page at a time (the server pages,
 * searches and sorts, so 10,000 files cost what 24 do), in a grid of
 * thumbnails or a list; favourite and delete one or many.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type ApiFile, type FilePage } from "../api.ts";
import { formatBytes, formatDate } from "../format.ts";
import { Icon, IconButton } from "../icons.tsx";
import { Field, SelectField } from "../components/field.tsx";
import { CopyButton } from "../components/copy_button.tsx";
import { FilePanel } from "../components/file_panel.tsx";
import { FileThumb } from "../components/file_thumb.tsx";
import { confirmAction, withToast } from "../components/feedback.tsx";

const PER_PAGE = 24;
const SORTS = [
  ["createdAt", "Date"],
  ["name", "Name"],
  ["size", "Size"],
  ["views", "Views"],
] as const;

/** What the list shows: the query of `GET /api/user/files`. */
interface Query {
  page: number;
  search: string;
  /** Where `search` looks: the name, the original name or the type. */
  searchField: "name" | "originalName" | "type";
  /** Only files with this tag (then `search` is not sent: the API searches one field). */
  tag: string;
  sortBy: typeof SORTS[number][0];
  order: "asc" | "desc";
  favorite: boolean;
  /** Only this folder's files (from `?folder=` in the page's address). */
  folder: string | null;
  /** Another user's files, for an administrator (from `?user=` in the page's address). */
  user: string | null;
}

function queryString(q: Query): string {
  const params = new URLSearchParams({
    page: String(q.page),
    perpage: String(PER_PAGE),
    sortBy: q.sortBy,
    order: q.order,
  });
  if (q.tag) {
    params.set("searchField", "tags");
    params.set("searchQuery", q.tag);
  } else if (q.search.trim()) {
    params.set("searchField", q.searchField);
    params.set("searchQuery", q.search.trim());
  }
  if (q.favorite) params.set("favorite", "true");
  if (q.folder) params.set("folder", q.folder);
  if (q.user) params.set("id", q.user);
  return params.toString();
}

/** A tag or a folder, as the filters name them. */
interface Named {
  id: string;
  name: string;
}

/** The absolute link of a file. */
function link(file: ApiFile): string {
  return new URL(file.url, location.origin).href;
}

/** One file's controls: select, favourite, copy, open, delete. */
function FileActions(
  { file, onChange }: { file: ApiFile; onChange: () => void },
) {
  const favorite = async () => {
    await api("PATCH", `/api/user/files/${encodeURIComponent(file.id)}`, {
      favorite: !file.favorite,
    });
    onChange();
  };
  const remove = async () => {
    const sure = await confirmAction({
      title: "Delete this file?",
      message: `${file.name} and its link go for good.`,
      confirm: "Delete",
      deletion: true,
    });
    if (
      sure &&
      await withToast(
        `Deleted ${file.name}.`,
        () => api("DELETE", `/api/user/files/${encodeURIComponent(file.id)}`),
      )
    ) onChange();
  };
  return (
    <div class="actions">
      <button
        type="button"
        class={file.favorite ? "icon-button active" : "icon-button"}
        aria-pressed={file.favorite}
        aria-label={`Favourite ${file.name}`}
        title="Favourite"
        onClick={favorite}
      >
        <Icon name="star" />
      </button>
      <CopyButton text={link(file)} label={`Copy link to ${file.name}`} />
      <a
        class="icon-button"
        href={file.url}
        target="_blank"
        rel="noopener"
        aria-label={`Open ${file.name}`}
        title="Open"
      >
        <Icon name="open" />
      </a>
      <IconButton
        icon="trash"
        danger
        label={`Delete ${file.name}`}
        title="Delete"
        onClick={remove}
      />
    </div>
  );
}

/** The check box that selects a file for a bulk action. */
function Select(
  { file, selected, toggle }: { file: ApiFile; selected: boolean; toggle: () => void },
) {
  return (
    <input
      type="checkbox"
      checked={selected}
      onChange={toggle}
      aria-label={`Select ${file.name}`}
    />
  );
}

/** The files page. */
export function FilesPage() {
  const address = new URLSearchParams(location.search);
  const [query, setQuery] = useState<Query>({
    page: 1,
    search: "",
    searchField: "name",
    tag: "",
    sortBy: "createdAt",
    order: "desc",
    favorite: false,
    folder: address.get("folder"),
    user: address.get("user"),
  });
  const [view, setView] = useState<"grid" | "list">(
    localStorage.getItem("ferry-files-view") === "list" ? "list" : "grid",
  );
  const [result, setResult] = useState<FilePage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [version, setVersion] = useState(0);
  const files = result?.page ?? [];
  const [open, setOpen] = useState<ApiFile | null>(null);
  const [tags, setTags] = useState<Named[]>([]);
  const [folders, setFolders] = useState<Named[]>([]);
  const [moveTo, setMoveTo] = useState("");
  useEffect(() => {
    if (query.user) return; // the caller's own tags and folders filter only its own files
    api<Named[]>("GET", "/api/user/tags").then(setTags, () => {});
    api<Named[]>("GET", "/api/user/folders?noincl=true").then(setFolders, () => {});
  }, []);
  const reload = () => setVersion((v) => v + 1);

  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api<FilePage>("GET", `/api/user/files?${queryString(query)}`)
        .then((page) => {
          if (!controller.signal.aborted) setResult(page);
          setError(null);
        }, (e: Error) => setError(e.message));
    }, query.search ? 200 : 0);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [query, version]);

  const change = (patch: Partial<Query>) => setQuery({ ...query, page: 1, ...patch });
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (!next.delete(id)) next.add(id);
    setSelected(next);
  };
  const bulk = async (method: "PATCH" | "DELETE", body: Record<string, unknown>) => {
    await api(method, "/api/user/files/transaction", { files: [...selected], ...body });
    setSelected(new Set());
    reload();
  };
  /** Adds `tag` to every selected file (one request a file: the API sets a file's tags). */
  const tagSelected = async (tag: string) => {
    if (!tag) return;
    const chosen = files.filter((f) => selected.has(f.id));
    await Promise.all(
      chosen.map((f) =>
        api("PATCH", `/api/user/files/${encodeURIComponent(f.id)}`, {
          tags: [...new Set([...(f.tags ?? []).map((t) => t.id), tag])],
        })
      ),
    );
    setSelected(new Set());
    reload();
  };
  const chooseView = (v: "grid" | "list") => {
    localStorage.setItem("ferry-files-view", v);
    setView(v);
  };

  return (
    <>
      <h1>{query.user ? `Files of ${address.get("username") ?? "a user"}` : "Files"}</h1>
      <div class="toolbar" role="search">
        <label class="field grow">
          <span>Search by name</span>
          <input
            type="search"
            value={query.search}
            disabled={query.tag !== ""}
            onInput={(e) => change({ search: e.currentTarget.value })}
          />
        </label>
        <Field
          label="Search in"
          control={(id) => (
            <select
              id={id}
              value={query.searchField}
              onChange={(e) =>
                change({ searchField: e.currentTarget.value as Query["searchField"] })}
            >
              <option value="name">Name</option>
              <option value="originalName">Original name</option>
              <option value="type">Type</option>
            </select>
          )}
        />
        <SelectField
          label="Tag"
          value={query.tag}
          onValue={(v) => change({ tag: v })}
          options={[["", "Any"], ...tags.map((t) => [t.id, t.name] as const)]}
        />
        <SelectField
          label="Folder"
          value={query.folder ?? ""}
          onValue={(v) => change({ folder: v || null })}
          options={[["", "Any"], ...folders.map((f) => [f.id, f.name] as const)]}
        />
        <SelectField
          label="Sort by"
          value={query.sortBy}
          onValue={(v) => change({ sortBy: v as Query["sortBy"] })}
          options={SORTS}
        />
        <SelectField
          label="Order"
          value={query.order}
          onValue={(v) => change({ order: v as Query["order"] })}
          options={[["desc", "Newest / largest first"], ["asc", "Oldest / smallest first"]]}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={query.favorite}
            onChange={(e) => change({ favorite: e.currentTarget.checked })}
          />
          Favourites only
        </label>
        <div class="segmented" role="group" aria-label="View">
          <button
            type="button"
            aria-pressed={view === "grid"}
            aria-label="Grid view"
            onClick={() => chooseView("grid")}
          >
            <Icon name="grid" />
          </button>
          <button
            type="button"
            aria-pressed={view === "list"}
            aria-label="List view"
            onClick={() => chooseView("list")}
          >
            <Icon name="list" />
          </button>
        </div>
      </div>

      {selected.size > 0 && (
        <div class="bulk" role="region" aria-label="Selected files">
          <span>{selected.size} selected</span>
          <button type="button" onClick={() => bulk("PATCH", { favorite: true })}>
            Favourite
          </button>
          <button type="button" onClick={() => bulk("PATCH", { favorite: false })}>
            Unfavourite
          </button>
          <button type="button" onClick={() => bulk("PATCH", { private: true })}>
            Make private
          </button>
          <button type="button" onClick={() => bulk("PATCH", { private: false })}>
            Make public
          </button>
          <button
            type="button"
            class="danger"
            onClick={async () => {
              const sure = await confirmAction({
                title: `Delete ${selected.size} ${selected.size === 1 ? "file" : "files"}?`,
                message: "The selected files and their links go for good.",
                confirm: "Delete",
                deletion: true,
              });
              if (sure) bulk("DELETE", { delete_datasourceFiles: true });
            }}
          >
            Delete selected
          </button>
          <a
            class="button"
            href={`/api/user/files/zip?files=${[...selected].map(encodeURIComponent).join(",")}`}
            download
          >
            Download as zip
          </a>
          {folders.length > 0 && (
            <form
              class="inline-form"
              aria-label="Move the selected files"
              onSubmit={(e) => {
                e.preventDefault();
                if (moveTo) bulk("PATCH", { folder: moveTo });
              }}
            >
              <SelectField
                label="Folder"
                value={moveTo}
                onValue={(v) => setMoveTo(v)}
                options={[["", "Choose…"], ...folders.map((f) => [f.id, f.name] as const)]}
              />
              <button type="submit" disabled={!moveTo}>Move</button>
            </form>
          )}
          {tags.length > 0 && (
            <Field
              label="Add a tag"
              control={(id) => (
                <select
                  id={id}
                  value=""
                  onChange={(e) => tagSelected(e.currentTarget.value)}
                >
                  <option value="">Choose…</option>
                  {tags.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
                </select>
              )}
            />
          )}
          <button type="button" onClick={() => setSelected(new Set())}>Clear</button>
        </div>
      )}

      {error && <p class="error" role="alert">{error}</p>}
      {result && (
        <p class="muted" aria-live="polite">
          {result.total} {result.total === 1 ? "file" : "files"}
        </p>
      )}

      {view === "grid"
        ? (
          <ul class="file-grid" aria-label="Files">
            {files.map((file) => (
              <li key={file.id} class="file-card">
                <Select
                  file={file}
                  selected={selected.has(file.id)}
                  toggle={() => toggle(file.id)}
                />
                <button
                  type="button"
                  class="card-open"
                  title={file.name}
                  aria-label={`Details of ${file.name}`}
                  onClick={() => setOpen(file)}
                >
                  <FileThumb file={file} />
                  <span class="file-name">{file.name}</span>
                </button>
                <span class="muted">
                  {formatBytes(file.size)} · {file.views} {file.views === 1 ? "view" : "views"}
                </span>
                <FileActions file={file} onChange={reload} />
              </li>
            ))}
          </ul>
        )
        : (
          <table class="file-table" aria-label="Files">
            <thead>
              <tr>
                <th scope="col">
                  <span class="visually-hidden">Selected</span>
                </th>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Size</th>
                <th scope="col">Views</th>
                <th scope="col">Uploaded</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {files.map((file) => (
                <tr key={file.id}>
                  <td>
                    <Select
                      file={file}
                      selected={selected.has(file.id)}
                      toggle={() => toggle(file.id)}
                    />
                  </td>
                  <td class="file-name">
                    <button
                      type="button"
                      class="link"
                      aria-label={`Details of ${file.name}`}
                      onClick={() => setOpen(file)}
                    >
                      {(file.password || file.private) && <Icon name="lock" size={14} />}{" "}
                      {file.name}
                    </button>
                  </td>
                  <td>{file.type}</td>
                  <td>{formatBytes(file.size)}</td>
                  <td>{file.views}</td>
                  <td>{formatDate(file.createdAt)}</td>
                  <td>
                    <FileActions file={file} onChange={reload} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}

      {open && (
        <FilePanel
          key={open.id}
          file={open}
          onClose={(changed) => {
            setOpen(null);
            if (changed) reload();
          }}
        />
      )}

      {result && result.pages > 1 && (
        <nav class="pager" aria-label="Pages">
          <button
            type="button"
            disabled={query.page <= 1}
            onClick={() => setQuery({ ...query, page: query.page - 1 })}
          >
            Previous
          </button>
          <span>Page {query.page} of {result.pages}</span>
          <button
            type="button"
            disabled={query.page >= result.pages}
            onClick={() => setQuery({ ...query, page: query.page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </>
  );
}
