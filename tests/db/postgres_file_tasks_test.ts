/**
 * PostgreSQL's indexes of the cleaning tasks' candidates (migration 033, and
 * 005's `files_deletes_at`): over 20,000 files of which a few are
 * candidates, each kind of `FileStore.candidates` reads its index, never
 * every file, and answers exactly its files.
 */
import assert from "node:assert/strict";
import type { FileCandidates } from "../../db/files.ts";
import { candidatesQuery } from "../../db/postgres/files.ts";
import { migratedPostgresTest, storedUser } from "../helpers/stores.ts";

migratedPostgresTest(
  "postgres 033: each cleaning task's candidates are read from their index, at 20,000 files",
  async (sql, store) => {
    const [owner, other] = [await storedUser(store), await storedUser(store)];
    const start = Date.UTC(2026, 0, 1);
    // 1 in 1000 expired, exhausted, pending (a day old) or with a thumbnail; 10 files of `other`;
    // 2 in 1000 in a folder (one of them pending).
    await sql`INSERT INTO files (id, name, size, type, user_id, created_at, updated_at,
      deletes_at, max_views, views, pending, thumbnail, folder_id)
    SELECT 'f' || i, 'n' || i, 1, 'text/plain',
      CASE WHEN i <= 10 THEN ${other.id} ELSE ${owner.id} END,
      ${new Date(start)}::timestamptz + i * interval '1 second',
      ${new Date(start)}::timestamptz + i * interval '1 second',
      CASE WHEN i % 1000 = 1 THEN ${new Date(start)}::timestamptz
        WHEN i % 500 = 1 THEN ${new Date(start + 1e10)}::timestamptz END,
      CASE WHEN i % 1000 = 2 THEN 3 WHEN i % 100 = 3 THEN 9 END,
      CASE WHEN i % 1000 = 2 THEN 3 ELSE 1 END,
      i % 1000 = 4,
      CASE WHEN i % 1000 = 5 THEN '.thumbnail.f' || i || '.jpg' END,
      CASE WHEN i % 1000 IN (4, 6) THEN 'folder1' END
    FROM generate_series(1, 20000) AS i`;
    await sql`ANALYZE files`;
    const by = new Date(start + 1e9);
    const cases: [FileCandidates, string, (i: number) => boolean][] = [
      [{ kind: "expired", by }, "files_deletes_at", (i) => i % 1000 === 1],
      [{ kind: "exhausted" }, "files_exhausted", (i) => i % 1000 === 2],
      [{ kind: "abandoned", by }, "files_abandoned", (i) => i % 1000 === 4],
      [{ kind: "thumbnailed" }, "files_thumbnailed", (i) => i % 1000 === 5],
      [{ kind: "owned", userId: other.id }, "files_user_id_created_at", (i) => i <= 10],
      [
        { kind: "foldered", userId: owner.id, folderId: "folder1" },
        "files_(list_)?folder\\w*",
        (i) => i > 10 && (i % 1000 === 4 || i % 1000 === 6),
      ],
    ];
    for (const [which, index, wanted] of cases) {
      const plan = (await sql`EXPLAIN ${candidatesQuery(sql, which, 200)}`)
        .map((row) => row["QUERY PLAN"]).join("\n");
      assert.match(plan, new RegExp(`(using|on) ${index}\\b`), `${which.kind}:\n${plan}`);
      assert.doesNotMatch(plan, /Seq Scan/, `${which.kind}:\n${plan}`);
      const found = await store.files.candidates(which, 200);
      const want = Array.from({ length: 20000 }, (_, i) => i + 1).filter(wanted).map((i) =>
        `f${i}`
      );
      assert.deepEqual(found.map((f) => f.id).sort(), want.sort(), which.kind);
    }
    const after = await store.files.candidates({ kind: "thumbnailed", after: "f5005" }, 200);
    assert.deepEqual(after.map((f) => f.id), ["f6005", "f7005", "f8005", "f9005"]);
  },
);
