/**
 * The files search through its indexes (issue #32: trigram indexes on
 * PostgreSQL, migration 029; the suffix and type index on Deno KV,
 * `db/kv/file_search.ts`): `GET /api/user/files?searchField=…&searchQuery=…`
 * answers what the search gave before the indexes, a case-insensitive
 * substring match read from every file of the owner (on PostgreSQL
 * `position(lower(q) in lower(column))`, on Deno KV `queryFiles`), for mixed
 * case, unicode, one- and two-character queries, `%`, `_` and the escape;
 * and the index follows renames, deletes, imports and concurrent uploads.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { type FileRecord, type FileSearchField, queryFiles } from "../../db/files.ts";
import type { KvStore } from "../../db/kv/mod.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles } from "../helpers/files.ts";
import { fileRecord } from "../helpers/stores.ts";
import { type Actor, actor } from "../helpers/users.ts";

const SQL_COLUMNS = { name: "name", originalName: "original_name", type: "type", id: "id" };

/** The ids the search found before the indexes, newest first, read from every file. */
async function oldSearch(
  app: TestApp,
  sql: postgres.Sql | null,
  userId: string,
  field: FileSearchField,
  query: string,
): Promise<string[]> {
  if (app.kind === "kv") {
    const all = await app.backend.files.listByUser(userId);
    const q = { userId, offset: 0, limit: Infinity, sortBy: "createdAt", order: "desc" } as const;
    return queryFiles(all, { ...q, search: { field, query } }).files.map((f) => f.id);
  }
  const column = sql!.unsafe(SQL_COLUMNS[field]);
  const rows = await sql!<{ id: string }[]>`SELECT id FROM files
    WHERE user_id = ${userId} AND NOT pending
      AND position(lower(${query}) in lower(coalesce(${column}, ''))) > 0
    ORDER BY created_at DESC, id COLLATE "C"`;
  return rows.map((r) => r.id);
}

/** The ids and total `GET /api/user/files` answers for a search, newest first. */
async function search(app: TestApp, who: Actor, field: string, query: string, perpage = 1000) {
  const params = new URLSearchParams({
    page: "1",
    perpage: String(perpage),
    searchField: field,
    searchQuery: query,
  });
  const res = await app.json("GET", `/api/user/files?${params}`, undefined, who.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ids: res.body.page.map((f: { id: string }) => f.id) as string[], total: res.body.total };
}

const LONG = `${"x".repeat(60)}Needle-Past-The-Index.txt`;

/** Names, original names and types a search must tell apart. */
const SEEDS: [string, string | null, string][] = [
  ["Holiday-Photo.PNG", "Holiday Photo.png", "image/png"],
  ["holiday_2026.png", "HOLIDAY 2026.png", "image/png"],
  ["100%_done.txt", "100% done.txt", "text/plain"],
  ["a_b%c.txt", null, "text/plain"],
  ["caret^and\\slash.txt", "caret^and\\slash.txt", "text/plain"],
  ["ÜBER straße.txt", "Über Straße.txt", "text/plain"],
  ["İstanbul.jpg", "İSTANBUL.JPG", "image/jpeg"],
  ["日本語テキスト.txt", "日本語.txt", "text/plain; charset=utf-8"],
  ["emoji-😀-file.gif", "😀.gif", "image/gif"],
  [LONG, LONG, "application/x-Custom"],
  ["ab", "b", "video/mp4"],
];

const QUERIES = [
  "h",
  "H",
  "ho",
  "HOL",
  "holiday",
  "Holiday-Photo.PNG",
  "png",
  ".",
  "%",
  "_",
  "%_",
  "a_b",
  "0%",
  "^",
  "\\",
  "^and\\",
  "ü",
  "Ü",
  "über",
  "straße",
  "STRASSE",
  "i̇",
  "İ",
  "istanbul",
  "日本",
  "テ",
  "😀",
  "-😀-",
  "needle",
  "xxxxxxxxxxxxxxxxxxxxneedle-past",
  "image/",
  "IMAGE",
  "x-custom",
  "charset",
  "b",
  "zzz",
];

apiTest("search: each field and query finds what a read of every file found", async (app) => {
  const a = await actor(app, "USER");
  const other = await actor(app, "USER");
  const files = SEEDS.map(([name, originalName, type]) =>
    fileRecord(a.user.id, { name, originalName, type })
  );
  files.push(
    fileRecord(a.user.id, { name: "holiday-pending.png", pending: true }),
    fileRecord(other.user.id, { name: "holiday-theirs.png", originalName: "Holiday theirs" }),
  );
  await app.services.store.files.createMany(files);

  const sql = app.storeUrl ? postgres(app.storeUrl, { max: 1 }) : null;
  try {
    for (const field of ["name", "originalName", "type", "id"] as const) {
      for (const query of [...QUERIES, files[0].id.slice(3, 9)]) {
        const want = await oldSearch(app, sql, a.user.id, field, query);
        const got = await search(app, a, field, query);
        assert.deepEqual(got.ids, want, `${field} ${JSON.stringify(query)}`);
        assert.equal(got.total, want.length, `${field} ${JSON.stringify(query)}: total`);
      }
    }
  } finally {
    await sql?.end();
  }
  // A few answers spelled out, so that the old search's answers are not only compared.
  assert.equal((await search(app, a, "name", "holiday")).total, 2, "not pending, not theirs");
  assert.equal((await search(app, a, "name", "%")).total, 2);
  assert.equal((await search(app, a, "name", "_")).total, 3);
  assert.deepEqual((await search(app, a, "name", "needle")).ids, [files[9].id]);
  assert.equal((await search(app, a, "originalName", "b")).total, 3, "b, Über, İSTANBUL");

  // Pages of a search, sorted and filtered as any list.
  const params = "searchField=name&searchQuery=.&sortBy=name&order=asc&perpage=3";
  const pages = [];
  for (const page of [1, 2, 3, 4]) {
    const res = await app.json(
      "GET",
      `/api/user/files?page=${page}&${params}`,
      undefined,
      a.headers,
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.total, 10);
    assert.equal(res.body.pages, 4);
    pages.push(...res.body.page.map((f: { name: string }) => f.name));
  }
  const byName = files.slice(0, 10).map((f) => f.name).sort((x, y) => x < y ? -1 : x > y ? 1 : 0);
  assert.deepEqual(pages, byName);
  await app.json("PATCH", "/api/user/files/transaction", {
    files: [files[0].id],
    favorite: true,
  }, a.headers);
  const favourite = await app.json(
    "GET",
    "/api/user/files?page=1&favorite=true&searchField=name&searchQuery=HOLIDAY",
    undefined,
    a.headers,
  );
  assert.deepEqual(favourite.body.page.map((f: { id: string }) => f.id), [files[0].id]);
  assert.equal(favourite.body.total, 1);
});

apiTest(
  "search: a file just uploaded is found at once and after its keys are built; renamed or deleted before, it is found by what it is",
  async (app) => {
    const a = await actor(app, "USER");
    const upload = async (name: string) => {
      const res = await uploadFiles(app, [{ name, content: name, type: "text/plain" }], {
        ...a.headers,
        "x-service-original-name": "true",
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.files[0] as { id: string; name: string };
    };
    const kept = await upload("Fresh-Minutes.txt");
    const moved = await upload("Fresh-Agenda.txt");
    const gone = await upload("Fresh-Draft.txt");
    // Deno KV builds the search keys of new files after their write (db/kv/search_backlog.ts).
    const build = async () => {
      if (app.kind === "kv") await (app.backend as KvStore).buildSearchKeys();
    };
    const ids = async (field: string, query: string) => (await search(app, a, field, query)).ids;

    // At once: each field finds the new files.
    assert.deepEqual(await ids("name", kept.name), [kept.id]);
    assert.deepEqual(
      (await ids("originalName", "FRESH-")).sort(),
      [kept, moved, gone].map((f) => f.id).sort(),
    );
    assert.equal((await search(app, a, "type", "text/pl")).total, 3);

    // Renamed and deleted before their keys are built.
    const patched = await app.json("PATCH", `/api/user/files/${moved.id}`, {
      name: "Relocated-Agenda.txt",
      originalName: "Relocated Agenda.txt",
    }, a.headers);
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const deleted = await app.json("DELETE", `/api/user/files/${gone.id}`, undefined, a.headers);
    assert.equal(deleted.status, 200);
    for (const when of ["before the build", "after it"]) {
      assert.deepEqual(await ids("name", "relocated"), [moved.id], when);
      assert.deepEqual(await ids("originalName", "LOCATED AG"), [moved.id], when);
      assert.deepEqual(await ids("name", moved.name), [], `${when}: the old name`);
      assert.deepEqual(await ids("originalName", "agenda"), [moved.id], when);
      assert.deepEqual(await ids("originalName", "fresh-"), [kept.id], when);
      assert.deepEqual(await ids("name", gone.name), [], `${when}: the deleted file`);
      assert.equal((await search(app, a, "type", "text/pl")).total, 2, when);
      await build();
    }
  },
);

apiTest(
  "search: renames, changes, deletes, imports and concurrent uploads move the index",
  async (app) => {
    const a = await actor(app, "USER");
    const names = (q: string, field = "name") =>
      search(app, a, field, q).then(async (r) => {
        const files = await Promise.all(
          r.ids.map((id) => app.services.store.files.get(id) as Promise<FileRecord>),
        );
        return files.map((f) => field === "type" ? f.type : f.name).sort();
      });

    // Uploads at once: the group-committed writes index every file.
    const uploads = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) =>
          uploadFiles(app, [{ name: `Report-${i}.txt`, content: `r${i}`, type: "text/plain" }], {
            ...a.headers,
            "x-service-original-name": "true",
          }),
      ),
    );
    for (const res of uploads) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    assert.equal((await search(app, a, "originalName", "report-")).total, 8);
    const first = uploads[0].body.files[0] as { id: string; name: string };
    assert.equal((await search(app, a, "name", first.name)).total, 1);

    // A rename, a new original name and type: the old values find nothing, the new ones the file.
    const patched = await app.json("PATCH", `/api/user/files/${first.id}`, {
      name: "Renamed-Quarterly.txt",
      originalName: "Quarterly Ünïcode.txt", // Ü: PostgreSQL's lower() in a C locale keeps it
      type: "application/x-Quarterly",
    }, a.headers);
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal((await search(app, a, "name", first.name)).total, 0);
    assert.deepEqual(await names("quarterly"), ["Renamed-Quarterly.txt"]);
    assert.deepEqual(await names("TERLY Ünïc", "originalName"), ["Renamed-Quarterly.txt"]);
    assert.equal((await search(app, a, "originalName", "report-0")).total, 0);
    assert.deepEqual(await names("x-QUART", "type"), ["application/x-quarterly"]);
    assert.equal((await search(app, a, "type", "text/")).total, 7);

    // A favourite or a view writes the record again, and the index stays as it was.
    await app.json("PATCH", `/api/user/files/${first.id}`, { favorite: true }, a.headers);
    assert.deepEqual(await names("QUARTERLY"), ["Renamed-Quarterly.txt"]);

    // The tag search reads the tagged files alone, and follows a delete.
    const created = await app.json(
      "POST",
      "/api/user/tags",
      { name: "q", color: "#f80" },
      a.headers,
    );
    const tagId = created.body.id as string;
    const second = uploads[1].body.files[0] as { id: string };
    for (const id of [first.id, second.id]) {
      const tagged = await app.json("PATCH", `/api/user/files/${id}`, { tags: [tagId] }, a.headers);
      assert.equal(tagged.status, 200);
    }
    assert.deepEqual(
      (await search(app, a, "tags", tagId)).ids.sort(),
      [first.id, second.id].sort(),
    );

    // A delete removes the file from every field's answers.
    const gone = await app.json("DELETE", `/api/user/files/${first.id}`, undefined, a.headers);
    assert.equal(gone.status, 200);
    assert.equal((await search(app, a, "name", "quarterly")).total, 0);
    assert.equal((await search(app, a, "originalName", "quarterly")).total, 0);
    assert.equal((await search(app, a, "type", "quarterly")).total, 0);
    assert.deepEqual((await search(app, a, "tags", tagId)).ids, [second.id]);

    // An import (createMany) of many files at once, then a search that pages through them.
    const imported = Array.from(
      { length: 300 },
      (_, i) => fileRecord(a.user.id, { name: `imp-${i}.bin`, originalName: `Imported ${i}` }),
    );
    await app.services.store.files.createMany(imported);
    assert.equal((await search(app, a, "name", "IMP-")).total, 300);
    assert.equal((await search(app, a, "originalName", "ported 29")).total, 11);
    const page = await search(app, a, "name", "imp-", 15);
    assert.equal(page.ids.length, 15);
    assert.equal(page.total, 300);

    // A deleted user's files, kept without an owner, leave the index.
    const b = await actor(app, "USER");
    await app.services.store.files.createMany([fileRecord(b.user.id, { name: "owned-by-b.txt" })]);
    assert.equal((await search(app, b, "name", "owned-by")).total, 1);
    await app.services.store.files.disown(b.user.id);
    assert.equal((await search(app, b, "name", "owned-by")).total, 0);
  },
);
