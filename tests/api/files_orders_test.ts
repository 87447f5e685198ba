/**
 * The files list in every order right after uploads (issue #31): on Deno KV
 * an upload writes its list entries of the default order only and leaves
 * the others to a build after it (`db/kv/order_backlog.ts`), which a list
 * in another order runs first for its owner; here the background build is
 * held, so that every list below meets the uploads unbuilt. A file deleted,
 * renamed or made a favourite before the build is listed as it is now.
 */
import assert from "node:assert/strict";
import { FILE_SORT_KEYS, type FileQuery, queryFiles } from "../../db/files.ts";
import type { KvStore } from "../../db/kv/mod.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";

/** Asserts that `who`'s list in every order, both ways, holds the stored records in that order. */
async function assertEveryOrder(app: TestApp, who: Actor, favorite?: boolean) {
  const stored = await app.backend.files.listByUser(who.user.id);
  for (const sortBy of FILE_SORT_KEYS) {
    for (const order of ["asc", "desc"] as const) {
      const q: FileQuery = { userId: who.user.id, offset: 0, limit: 100, sortBy, order, favorite };
      const query = `page=1&perpage=100&sortBy=${sortBy}&order=${order}` +
        (favorite === undefined ? "" : `&favorite=${favorite}`);
      const res = await app.json("GET", `/api/user/files?${query}`, undefined, who.headers);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const want = queryFiles(stored, q);
      assert.equal(res.body.total, want.total, query);
      assert.deepEqual(res.body.page.map((f: { id: string }) => f.id), want.files.map((f) => f.id));
    }
  }
}

apiTest(
  "list orders: uploads are listed at once in every order, as are deletes, renames and favourites before the build",
  async (app) => {
    const backlog = app.kind === "kv" ? (app.backend as KvStore).backlog : undefined;
    await backlog?.hold(); // no build in the background: every list meets the uploads unbuilt
    try {
      const a = await actor(app, "USER");
      const ids: string[] = [];
      for (const [name, content] of [["b.txt", "22"], ["a.txt", "1"], ["c.txt", "4444"]]) {
        app.clock.advance(1000);
        const res = await uploadFiles(app, [{ name, content, type: "text/plain" }], {
          ...a.headers,
          "x-service-original-name": "true",
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        ids.push(res.body.files[0].id);
      }
      app.clock.advance(1000);
      // Two files in one upload, and an upload of another user beside them.
      const two = await uploadFiles(app, [
        { name: "e.png", content: "55555", type: "image/png" },
        { name: "d.png", content: "333", type: "image/png" },
      ], a.headers);
      assert.equal(two.status, 200, JSON.stringify(two.body));
      const b = await actor(app, "USER");
      assert.equal(
        (await uploadFiles(app, [{ name: "x.txt", content: "x" }], b.headers)).status,
        200,
      );

      const bySize = await app.json(
        "GET",
        "/api/user/files?page=1&sortBy=size&order=asc",
        undefined,
        a.headers,
      );
      assert.deepEqual(bySize.body.page.map((f: { size: number }) => f.size), [1, 2, 3, 4, 5]);
      await assertEveryOrder(app, a);
      await assertEveryOrder(app, b);

      // Changes before the build: more uploads, then a deletion, a rename and a favourite.
      const more: string[] = [];
      for (const name of ["f.txt", "g.txt", "h.txt"]) {
        app.clock.advance(1000);
        const res = await uploadFiles(app, [{ name, content: name.repeat(3) }], a.headers);
        more.push(res.body.files[0].id);
      }
      const del = await app.json("DELETE", `/api/user/files/${more[0]}`, undefined, a.headers);
      assert.equal(del.status, 200, JSON.stringify(del.body));
      const patch = (id: string, body: unknown) =>
        app.json("PATCH", `/api/user/files/${id}`, body, a.headers);
      assert.equal((await patch(more[1], { favorite: true })).status, 200);
      assert.equal((await patch(more[2], { name: "aaa-renamed.txt" })).status, 200);
      const byName = await app.json(
        "GET",
        "/api/user/files?page=1&sortBy=name&order=asc",
        undefined,
        a.headers,
      );
      assert.equal(byName.body.total, 7);
      assert.ok(byName.body.page.some((f: { name: string }) => f.name === "aaa-renamed.txt"));
      assert.ok(!byName.body.page.some((f: { id: string }) => f.id === more[0]), "deleted");
      await assertEveryOrder(app, a);
      await assertEveryOrder(app, a, true);
      await assertEveryOrder(app, a, false);
    } finally {
      backlog?.release();
    }
  },
);
