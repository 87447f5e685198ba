/**
 * PostgreSQL migrations that carry data (issue #32): a database migrated up to
 * 022, holding files, is migrated to 027 with every owner's statistics
 * counted from its files, and counted on from there by the triggers; the
 * later ones that change the indexes keep every order of the files stored.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { migrate } from "../../db/postgres/migrate.ts";
import { MIGRATIONS } from "../../db/postgres/migrations/mod.ts";
import { PostgresStore } from "../../db/postgres/mod.ts";
import { fileRecord, freshDatabase, ignoreKind, storedUser } from "../helpers/stores.ts";

Deno.test({
  name: "postgres 027: the files already stored are counted into their owners' statistics",
  ignore: ignoreKind("postgres"),
  fn: async () => {
    const db = await freshDatabase();
    const sql = postgres(db.url, { max: 4, onnotice: () => {} });
    try {
      await migrate(sql, MIGRATIONS.filter((m) => m.version < 27));
      const store = new PostgresStore(sql);
      const [ann, bob] = [await storedUser(store), await storedUser(store)];
      await store.files.createMany([
        fileRecord(ann.id, { type: "image/png", size: 10, views: 2, favorite: true }),
        fileRecord(ann.id, { type: "image/png", size: 20 }),
        fileRecord(ann.id, { type: "text/plain", size: 5, views: 1 }),
        fileRecord(bob.id, { type: "text/plain", size: 7 }),
        fileRecord(ann.id, { type: "video/mp4", size: 0, pending: true }),
        fileRecord(null, { type: "text/plain", size: 3 }),
      ]);
      assert.deepEqual(await migrate(sql, MIGRATIONS.filter((m) => m.version <= 27)), [27]);
      assert.deepEqual(await store.files.stats(ann.id), {
        files: 3,
        favorites: 1,
        views: 3,
        bytes: 35,
        types: { "image/png": 2, "text/plain": 1 },
      });
      assert.deepEqual(await store.files.stats(null), {
        files: 1,
        favorites: 0,
        views: 0,
        bytes: 3,
        types: { "text/plain": 1 },
      });
      await store.files.createMany([fileRecord(bob.id, { type: "text/plain", size: 1 })]);
      assert.equal((await store.files.stats(bob.id)).files, 2, "counted on by the triggers");
      // The later migrations (036: the recount's `touched`) over these counters: nothing to repair.
      await migrate(sql);
      assert.deepEqual(await store.files.recountStats(ann.id, 1000), {
        done: true,
        repaired: 0,
        read: 3,
      });
    } finally {
      await sql.end();
      await db.drop();
    }
  },
});

Deno.test({
  name: "postgres 042: every index of files on its folder holds only files in a folder",
  ignore: ignoreKind("postgres"),
  fn: async () => {
    const db = await freshDatabase();
    const sql = postgres(db.url, { max: 2, onnotice: () => {} });
    try {
      await migrate(sql, MIGRATIONS.filter((m) => m.version < 42));
      const store = new PostgresStore(sql);
      const ann = await storedUser(store);
      await store.files.createMany([
        fileRecord(ann.id, { folderId: "folder" }),
        fileRecord(ann.id),
      ]);
      assert.deepEqual(await migrate(sql, MIGRATIONS.filter((m) => m.version <= 42)), [42]);
      const indexes = await sql<{ name: string; definition: string }[]>`
        SELECT indexname AS name, indexdef AS definition FROM pg_indexes
        WHERE tablename = 'files' AND indexdef LIKE '%folder_id%'`;
      assert.ok(indexes.length > 0);
      for (const { name, definition } of indexes) {
        assert.match(definition, /WHERE \(*folder_id IS NOT NULL/, name);
      }
      // The store's code reads the later migrations' tables (a folder's count, 044).
      await migrate(sql, MIGRATIONS);
      const listed = await store.files.list({
        userId: ann.id,
        folderId: "folder",
        offset: 0,
        limit: 10,
        sortBy: "createdAt",
        order: "desc",
      });
      assert.equal(listed.total, 1);
    } finally {
      await sql.end();
      await db.drop();
    }
  },
});

Deno.test({
  name: "postgres 048: the files already stored are listed by favourite and by expiry as before",
  ignore: ignoreKind("postgres"),
  fn: async () => {
    const db = await freshDatabase();
    const sql = postgres(db.url, { max: 4, onnotice: () => {} });
    try {
      await migrate(sql, MIGRATIONS.filter((m) => m.version < 48));
      const store = new PostgresStore(sql);
      const ann = await storedUser(store);
      const day = (d: number) => new Date(Date.UTC(2027, 0, d));
      await store.files.createMany([
        fileRecord(ann.id, { id: "f1", favorite: true, deletesAt: day(3) }),
        fileRecord(ann.id, { id: "f2" }),
        fileRecord(ann.id, { id: "f3", deletesAt: day(1) }),
        fileRecord(ann.id, { id: "f4", favorite: true }),
        fileRecord(ann.id, { id: "f5", deletesAt: day(3) }),
      ]);
      const listed = async (sortBy: "favorite" | "deletesAt", order: "asc" | "desc") =>
        (await store.files.list({ userId: ann.id, offset: 1, limit: 3, sortBy, order }))
          .files.map((f) => f.id);
      const before = [
        await listed("favorite", "asc"),
        await listed("favorite", "desc"),
        await listed("deletesAt", "asc"),
        await listed("deletesAt", "desc"),
      ];
      assert.deepEqual(before, [
        ["f3", "f5", "f1"],
        ["f4", "f2", "f3"],
        ["f1", "f5", "f2"],
        ["f5", "f3", "f2"],
      ]);
      assert.deepEqual(await migrate(sql, MIGRATIONS.filter((m) => m.version <= 48)), [48]);
      const indexes = (await sql<{ name: string }[]>`
        SELECT indexname AS name FROM pg_indexes WHERE tablename = 'files'`).map((r) => r.name);
      assert.ok(!indexes.includes("files_list_favorite_asc"));
      assert.ok(!indexes.includes("files_list_favorite_desc"));
      await migrate(sql, MIGRATIONS);
      assert.deepEqual([
        await listed("favorite", "asc"),
        await listed("favorite", "desc"),
        await listed("deletesAt", "asc"),
        await listed("deletesAt", "desc"),
      ], before);
    } finally {
      await sql.end();
      await db.drop();
    }
  },
});
