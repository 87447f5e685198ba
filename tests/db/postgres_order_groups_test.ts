/**
 * The files list's orders read as two groups on PostgreSQL (migration 048,
 * `db/postgres/file_order_groups.ts`): which orders are, and each group's
 * part of a page, from the group's end past its middle. (The pages
 * themselves: tests/contract/file_list_test.ts and
 * tests/db/postgres_file_list_test.ts.)
 */
import assert from "node:assert/strict";
import type { FileQuery } from "../../db/files.ts";
import { groupReads, listedOrder, orderGroups } from "../../db/postgres/file_order_groups.ts";

const q: FileQuery = { userId: "u", offset: 0, limit: 15, sortBy: "favorite", order: "desc" };

Deno.test("order groups: by favourite and by expiry, in the owner's list only", () => {
  assert.deepEqual(orderGroups(q)?.map((g) => g.condition), ["favorite", "NOT favorite"]);
  assert.deepEqual(orderGroups({ ...q, order: "asc" })?.map((g) => g.condition), [
    "NOT favorite",
    "favorite",
  ]);
  for (const order of ["asc", "desc"] as const) {
    assert.deepEqual(orderGroups({ ...q, sortBy: "deletesAt", order })?.map((g) => g.condition), [
      "deletes_at IS NOT NULL",
      "deletes_at IS NULL",
    ]);
  }
  assert.equal(orderGroups({ ...q, sortBy: "name" }), null);
  assert.equal(orderGroups({ ...q, folderId: "f" }), null);
  assert.equal(orderGroups({ ...q, sortBy: "deletesAt", favorite: true }), null);
  assert.equal(orderGroups({ ...q, tagIds: ["t"] }), null);
  // The favourites' list by favourite: every key a tie, so by id ascending.
  assert.deepEqual(listedOrder({ ...q, favorite: false }), {
    ...q,
    favorite: false,
    sortBy: "id",
    order: "asc",
  });
  assert.equal(listedOrder(q), q);
});

Deno.test("order groups: each group's part of a page, from its nearer end", () => {
  // Within the first group, before its middle; across both; within the second, past its middle.
  assert.deepEqual(groupReads([100, 1000], 10, 15), [
    { group: 0, offset: 10, limit: 15, reversed: false },
  ]);
  assert.deepEqual(groupReads([100, 1000], 90, 15), [
    { group: 0, offset: 0, limit: 10, reversed: true },
    { group: 1, offset: 0, limit: 5, reversed: false },
  ]);
  assert.deepEqual(groupReads([100, 1000], 900, 15), [
    { group: 1, offset: 185, limit: 15, reversed: true },
  ]);
  // The last page, shorter; past the end; an empty first group.
  assert.deepEqual(groupReads([100, 1000], 1090, 15), [
    { group: 1, offset: 0, limit: 10, reversed: true },
  ]);
  assert.deepEqual(groupReads([100, 1000], 1100, 15), []);
  assert.deepEqual(groupReads([0, 50], 0, 15), [
    { group: 1, offset: 0, limit: 15, reversed: false },
  ]);
});
