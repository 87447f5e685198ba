/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/files`, a file manager: the favourites first, then the files a
 * page at a time (page size chosen) in a grid or a table of chosen columns;
 * search by name, original name, type or id; bulk actions on the ticked
 * files or on every match across pages; a file's panel.
 */
import { useEffect, useState } from "preact/hooks";
import {
  type ApiFile,
  type Folder,
  listFiles,
  listFolders,
  listTags,
  type Tag,
} from "../../api/files.ts";
import { FilePanel } from "../../components/file_panel.tsx";
import { BulkBar, type Selection } from "./bulk_bar.tsx";
import { FileGrid } from "./file_grid.tsx";
import { FileTable } from "./file_table.tsx";
import { Toolbar } from "./toolbar.tsx";
import { useFiles } from "./use_files.ts";

const EMPTY: Selection = { ids: new Set(), seen: new Map(), allMatching: false };
const FAVOURITES_SHOWN = 8;

/** The files page. */
export function FilesPage() {
  const { query, result, error, change, reload } = useFiles();
  const [view, setView] = useState<"grid" | "list">(
    localStorage.getItem("ferry-files-view") === "list" ? "list" : "grid",
  );
  const [selection, setSelection] = useState<Selection>(EMPTY);
  const [open, setOpen] = useState<ApiFile | null>(null);
  const [tags, setTags] = useState<Tag[]>([]);
  const [folders, setFolders] = useState<Folder[]>([]);
  const [favourites, setFavourites] = useState<ApiFile[]>([]);
  const files = result?.page ?? [];
  const filtered = query.search.trim() !== "" || query.tag !== "" || query.favorite ||
    query.folder !== null;

  useEffect(() => {
    if (query.user) return; // the caller's own tags and folders filter only its own files
    listTags().then(setTags, () => {});
    listFolders().then(setFolders, () => {});
  }, []);
  useEffect(() => {
    if (filtered || query.page !== 1) return setFavourites([]);
    listFiles({
      page: 1,
      perpage: FAVOURITES_SHOWN,
      sortBy: "createdAt",
      order: "desc",
      favorite: true,
      user: query.user,
    }).then((page) => setFavourites(page.page), () => {});
  }, [result]);

  const toggle = (id: string) => {
    const ids = new Set(selection.ids);
    const seen = new Map(selection.seen);
    if (!ids.delete(id)) {
      ids.add(id);
      const file = [...files, ...favourites].find((f) => f.id === id);
      if (file) seen.set(id, file);
    }
    setSelection({ ids, seen, allMatching: false });
  };
  const selectPage = (checked: boolean) => {
    if (!checked) return setSelection(EMPTY);
    setSelection({
      ids: new Set(files.map((f) => f.id)),
      seen: new Map(files.map((f) => [f.id, f])),
      allMatching: false,
    });
  };
  const chooseView = (v: "grid" | "list") => {
    localStorage.setItem("ferry-files-view", v);
    setView(v);
  };
  const shared = {
    selected: selection.allMatching ? new Set(files.map((f) => f.id)) : selection.ids,
    toggle,
    open: setOpen,
    reload,
  };
  const pageSelected = files.length > 0 && files.every((f) => shared.selected.has(f.id));

  return (
    <>
      <h1>
        {query.user
          ? `Files of ${new URLSearchParams(location.search).get("username") ?? "a user"}`
          : "Files"}
      </h1>
      {favourites.length > 0 && (
        <section class="favourites" aria-labelledby="favourites-title">
          <h2 id="favourites-title">Favourites</h2>
          <FileGrid files={favourites} label="Favourite files" {...shared} />
        </section>
      )}
      <Toolbar
        query={query}
        change={(patch) => {
          setSelection(EMPTY);
          change(patch);
        }}
        tags={tags}
        folders={folders}
        view={view}
        chooseView={chooseView}
      />
      <BulkBar
        selection={selection}
        total={result?.total ?? 0}
        pageCount={files.length}
        query={query}
        tags={tags}
        folders={folders}
        selectAll={() => setSelection({ ...selection, allMatching: true })}
        clear={() => setSelection(EMPTY)}
        done={reload}
      />

      {error && <p class="error" role="alert">{error}</p>}
      {result && (
        <div class="list-head">
          <label class="check">
            <input
              type="checkbox"
              checked={pageSelected}
              disabled={files.length === 0}
              onChange={(e) => selectPage(e.currentTarget.checked)}
            />
            Select this page
          </label>
          <p class="muted" aria-live="polite">
            {result.total} {result.total === 1 ? "file" : "files"}
          </p>
        </div>
      )}

      {view === "grid"
        ? <FileGrid files={files} label="Files" {...shared} />
        : <FileTable files={files} label="Files" {...shared} />}

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
            onClick={() => change({ page: query.page - 1 })}
          >
            Previous
          </button>
          <span>Page {query.page} of {result.pages}</span>
          <button
            type="button"
            disabled={query.page >= result.pages}
            onClick={() => change({ page: query.page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </>
  );
}
