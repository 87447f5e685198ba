/// <reference lib="dom" />
/**
 * The file table's columns: which are shown and in what order, remembered
 * in this browser. The name is always shown, first.
 */
import type { ApiFile } from "../../api/files.ts";
import { formatBytes, formatDate } from "../../format.ts";

/** A column: its id, heading and cell text. */
export interface Column {
  id: string;
  title: string;
  cell: (file: ApiFile) => string;
}

/** Every column but the name, in their default order. */
export const COLUMNS: Column[] = [
  { id: "type", title: "Type", cell: (f) => f.type },
  { id: "size", title: "Size", cell: (f) => formatBytes(f.size) },
  { id: "views", title: "Views", cell: (f) => String(f.views) },
  { id: "createdAt", title: "Uploaded", cell: (f) => formatDate(f.createdAt) },
  { id: "originalName", title: "Original name", cell: (f) => f.originalName ?? "" },
  {
    id: "maxViews",
    title: "Max views",
    cell: (f) => f.maxViews === null ? "" : String(f.maxViews),
  },
  {
    id: "deletesAt",
    title: "Expires",
    cell: (f) => f.deletesAt ? formatDate(f.deletesAt) : "never",
  },
  { id: "tags", title: "Tags", cell: (f) => (f.tags ?? []).map((t) => t.name).join(", ") },
  { id: "favorite", title: "Favourite", cell: (f) => f.favorite ? "★" : "" },
  { id: "id", title: "ID", cell: (f) => f.id },
];

/** A column's place: its id and whether it is shown. */
export type ColumnChoice = { id: string; shown: boolean };

const KEY = "ferry-files-columns";
const DEFAULT_SHOWN = new Set(["type", "size", "views", "createdAt"]);

/** The remembered choice, with columns added since (hidden) and unknown ones dropped. */
export function loadColumns(storage: Storage): ColumnChoice[] {
  let saved: ColumnChoice[] = [];
  try {
    const parsed = JSON.parse(storage.getItem(KEY) ?? "[]");
    if (Array.isArray(parsed)) saved = parsed;
  } catch {
    // forgotten
  }
  const known = new Set(COLUMNS.map((c) => c.id));
  const kept = saved.filter((c) => known.has(c?.id)).map((c) => ({ id: c.id, shown: !!c.shown }));
  const missing = COLUMNS.filter((c) => !kept.some((k) => k.id === c.id))
    .map((c) => ({ id: c.id, shown: saved.length === 0 && DEFAULT_SHOWN.has(c.id) }));
  return [...kept, ...missing];
}

/** Remembers the choice. */
export function saveColumns(storage: Storage, columns: ColumnChoice[]): void {
  storage.setItem(KEY, JSON.stringify(columns));
}

/** `columns` with the one at `index` moved by `by` places. */
export function moveColumn(columns: ColumnChoice[], index: number, by: -1 | 1): ColumnChoice[] {
  const to = index + by;
  if (to < 0 || to >= columns.length) return columns;
  const next = [...columns];
  [next[index], next[to]] = [next[to], next[index]];
  return next;
}
