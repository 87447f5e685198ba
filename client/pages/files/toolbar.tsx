/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/** The files page's toolbar: search (name, original name, type or id), filters, sort, page size, view. */
import type { Folder, Tag } from "../../api/files.ts";
import { Icon } from "../../icons.tsx";
import { SelectField } from "../../components/field.tsx";
import { type FilesQuery, PAGE_SIZES } from "./use_files.ts";

const SORTS = [
  ["createdAt", "Date"],
  ["name", "Name"],
  ["size", "Size"],
  ["views", "Views"],
  ["type", "Type"],
] as const;
const FIELDS = [
  ["name", "Name"],
  ["originalName", "Original name"],
  ["type", "Type"],
  ["id", "ID"],
] as const;

/** The toolbar. */
export function Toolbar(
  { query, change, tags, folders, view, chooseView }: {
    query: FilesQuery;
    change: (patch: Partial<FilesQuery>) => void;
    tags: Tag[];
    folders: Folder[];
    view: "grid" | "list";
    chooseView: (view: "grid" | "list") => void;
  },
) {
  const field = FIELDS.find(([f]) => f === query.searchField)![1].toLowerCase();
  return (
    <div class="toolbar" role="search">
      <label class="field grow">
        <span>Search by {field === "id" ? "ID" : field}</span>
        <input
          type="search"
          value={query.search}
          disabled={query.tag !== ""}
          onInput={(e) => change({ search: e.currentTarget.value })}
        />
      </label>
      <SelectField
        label="Search in"
        value={query.searchField}
        onValue={(v) => change({ searchField: v as FilesQuery["searchField"] })}
        options={FIELDS}
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
        onValue={(v) => change({ sortBy: v as FilesQuery["sortBy"] })}
        options={SORTS}
      />
      <SelectField
        label="Order"
        value={query.order}
        onValue={(v) => change({ order: v as FilesQuery["order"] })}
        options={[["desc", "Newest / largest first"], ["asc", "Oldest / smallest first"]]}
      />
      <SelectField
        label="Per page"
        value={String(query.perpage)}
        onValue={(v) => change({ perpage: Number(v) })}
        options={PAGE_SIZES.map((n) => [String(n), String(n)] as const)}
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
  );
}
