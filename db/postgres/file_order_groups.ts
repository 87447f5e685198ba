/**
 * The orders of an owner's files list that have no index of their own since
 * migration 048 (issue #32: every index of `files` is a cost of every
 * insert, an import's million included): by favourite, and by expiry
 * (`deletes_at`, nulls last). Each is two groups one after the other, each
 * read from an index kept for another reason: the favourites and the others,
 * each by id (the favourites' index, and the id order's, which carries
 * `favorite`); the expiring files by expiry (a small partial index) and the
 * others by id (the id order's, which carries `deletes_at`). Neither needs
 * a Sort, and the skipped entries of a deep page are read in the index alone.
 *
 * The size of the small group (the favourites: the owner's statistics when
 * they tell, else counted in their index; the expiring files: counted in
 * theirs) places the page: each group's part of it is read with its own
 * offset (from its end when that is nearer) and the page's rows are then put
 * in the list's order. The favourites' and the folders' lists keep their own
 * indexes of these orders (few rows: little cost to an import); a tag's list
 * is read as before (`./tag_counts.ts`).
 */
import type { FileQuery, FileSortKey } from "../files.ts";

/** One group of an order: the files it holds, and the order they have in it. */
export interface OrderGroup {
  /** Its condition (SQL, literal: a partial index's predicate must be proved by it). */
  condition: string;
  /** Its order's key and direction (ties by id ascending, as the list's). */
  sortBy: FileSortKey;
  order: "asc" | "desc";
  /** Whether it is the small group, which is counted. */
  small: boolean;
}

/**
 * `q` in the order it lists: the favourites' or the others' list by
 * favourite is by id ascending (every key a tie), read from the id order's
 * indexes.
 */
export function listedOrder(q: FileQuery): FileQuery {
  return q.sortBy === "favorite" && q.favorite !== undefined
    ? { ...q, sortBy: "id", order: "asc" }
    : q;
}

/** `q`'s order as its two groups, in the list's order; `null` when it is one index's walk. */
export function orderGroups(q: FileQuery): [OrderGroup, OrderGroup] | null {
  if (q.favorite !== undefined || q.folderId !== undefined || q.tagIds !== undefined) return null;
  if (q.sortBy === "favorite") {
    const favorites: OrderGroup = {
      condition: "favorite",
      sortBy: "id",
      order: "asc",
      small: true,
    };
    const others: OrderGroup = {
      condition: "NOT favorite",
      sortBy: "id",
      order: "asc",
      small: false,
    };
    return q.order === "desc" ? [favorites, others] : [others, favorites];
  }
  if (q.sortBy === "deletesAt") {
    return [
      { condition: "deletes_at IS NOT NULL", sortBy: "deletesAt", order: q.order, small: true },
      { condition: "deletes_at IS NULL", sortBy: "id", order: "asc", small: false },
    ];
  }
  return null;
}

/** One group's part of a page: which group, its offset and limit in it, and whether read from its end. */
export interface GroupRead {
  group: number;
  offset: number;
  limit: number;
  /** Read in the group's order reversed (`offset` counted from its end). */
  reversed: boolean;
}

/**
 * The reads of the page at `offset`, `limit` of groups of `sizes` (in the
 * list's order): each group's part, from the group's end when its part is
 * past the group's middle.
 */
export function groupReads(sizes: [number, number], offset: number, limit: number): GroupRead[] {
  const reads: GroupRead[] = [];
  let start = 0;
  sizes.forEach((size, group) => {
    const from = Math.max(offset, start);
    const to = Math.min(offset + limit, start + size);
    if (from < to) {
      const skip = from - start;
      const fromEnd = start + size - to;
      reads.push(
        fromEnd < skip
          ? { group, offset: fromEnd, limit: to - from, reversed: true }
          : { group, offset: skip, limit: to - from, reversed: false },
      );
    }
    start += size;
  });
  return reads;
}
