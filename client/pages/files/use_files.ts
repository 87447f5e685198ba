/// <reference lib="dom" />
/**
 * The files page's query: what the list shows (search, filters, sort, page,
 * page size), the page the server answered, and a reload. The server pages,
 * searches and sorts, so 10,000 files cost what 24 do.
 */
import { useEffect, useState } from "preact/hooks";
import {
  type FileListQuery,
  type FilePage,
  listFiles,
  type SearchField,
  type SortKey,
} from "../../api/files.ts";

/** What the person chose. */
export interface FilesQuery {
  page: number;
  perpage: number;
  search: string;
  /** Where `search` looks: the name, the original name, the type or the id. */
  searchField: Exclude<SearchField, "tags">;
  /** Only files with this tag (then `search` is not sent: the API searches one field). */
  tag: string;
  sortBy: SortKey;
  order: "asc" | "desc";
  favorite: boolean;
  /** Only this folder's files (from `?folder=` in the page's address). */
  folder: string | null;
  /** Another user's files, for an administrator (from `?user=` in the page's address). */
  user: string | null;
}

/** The page sizes offered. */
export const PAGE_SIZES = [12, 24, 48, 96, 200] as const;
const PAGE_SIZE_KEY = "ferry-files-perpage";

/** The list query the API is asked for `q`. */
export function apiQuery(q: FilesQuery): FileListQuery {
  const search = q.tag
    ? { searchField: "tags" as const, searchQuery: q.tag }
    : q.search.trim()
    ? { searchField: q.searchField, searchQuery: q.search.trim() }
    : {};
  return {
    page: q.page,
    perpage: q.perpage,
    sortBy: q.sortBy,
    order: q.order,
    favorite: q.favorite,
    folder: q.folder,
    user: q.user,
    ...search,
  };
}

/** The query, its answer, and the ways to change it. */
export interface FilesState {
  query: FilesQuery;
  result: FilePage | null;
  error: string | null;
  /** Changes the query; any change but the page goes back to page 1. */
  change: (patch: Partial<FilesQuery>) => void;
  reload: () => void;
}

/** The files page's query hook. */
export function useFiles(): FilesState {
  const address = new URLSearchParams(location.search);
  const saved = Number(localStorage.getItem(PAGE_SIZE_KEY));
  const [query, setQuery] = useState<FilesQuery>({
    page: 1,
    perpage: (PAGE_SIZES as readonly number[]).includes(saved) ? saved : 24,
    search: "",
    searchField: "name",
    tag: "",
    sortBy: "createdAt",
    order: "desc",
    favorite: false,
    folder: address.get("folder"),
    user: address.get("user"),
  });
  const [result, setResult] = useState<FilePage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let stale = false;
    const timer = setTimeout(() => {
      listFiles(apiQuery(query)).then((page) => {
        if (stale) return;
        setResult(page);
        setError(null);
      }, (e: Error) => !stale && setError(e.message));
    }, query.search ? 200 : 0);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [query, version]);
  const change = (patch: Partial<FilesQuery>) => {
    if (patch.perpage) localStorage.setItem(PAGE_SIZE_KEY, String(patch.perpage));
    setQuery({ ...query, ...(patch.page === undefined ? { page: 1 } : {}), ...patch });
  };
  return { query, result, error, change, reload: () => setVersion((v) => v + 1) };
}
