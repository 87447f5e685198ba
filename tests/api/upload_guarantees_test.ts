/**
 * What an upload promises under load, whatever the store does to be fast
 * (Deno KV commits concurrent uploads together, PostgreSQL writes each in one
 * statement): names stay unique, every stored file serves its own bytes,
 * quotas stay exact for several users at once, and a 200 means the record
 * and the bytes are there for a store and datasource opened afresh. Each
 * holds both ways a file is stored on a disk: staged, then recorded in one
 * commit (a small body of declared length), and recorded pending first (a
 * body streamed without one).
 */
import assert from "node:assert/strict";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import { servingStore } from "../../db/serving.ts";
import { createApp } from "../../routes/mod.ts";
import { LocalDatasource } from "../../storage/local.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadFiles } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

async function setQuota(app: TestApp, userId: string, quota: Record<string, unknown>) {
  await app.services.store.users.update(userId, {
    quota: { id: "q1", maxBytes: null, maxFiles: null, maxUrls: null, ...quota } as never,
  }, new Date());
}

/** The bytes `/raw/<name>` serves, as text. */
async function served(app: TestApp, name: string): Promise<string> {
  const res = await app.request(`/raw/${encodeURIComponent(name)}`);
  assert.equal(res.status, 200, name);
  return await res.text();
}

/** The ways an upload is stored, by how its body is sent ({@link uploadFiles}). */
const WAYS = [{ label: "staged", streamed: false }, { label: "pending first", streamed: true }];

for (const way of WAYS) {
  apiTest(
    `upload (${way.label}): concurrent uploads get distinct names, each serving its own bytes`,
    async (app) => {
      const a = await actor(app, "USER");
      const contents = Array.from({ length: 30 }, (_, i) => `file number ${i}`);
      const replies = await Promise.all(
        contents.map((content) =>
          uploadFiles(app, [{ name: "same.txt", content }], a.headers, way)
        ),
      );
      assert.deepEqual(replies.map((r) => r.status), contents.map(() => 200));
      const names = replies.map((r) => r.body.files[0].name as string);
      assert.equal(new Set(names).size, contents.length);
      for (const [i, name] of names.entries()) assert.equal(await served(app, name), contents[i]);
      const bytes = contents.reduce((sum, c) => sum + c.length, 0);
      assert.deepEqual(await app.services.store.files.usage(a.user.id), { bytes, files: 30 });
      assert.equal((await app.storedObjects()).length, 30);
    },
  );

  apiTest(
    `upload (${way.label}): concurrent uploads under one fixed name store one file`,
    async (app) => {
      const a = await actor(app, "USER");
      const replies = await Promise.all(
        Array.from(
          { length: 12 },
          (_, i) =>
            uploadFiles(app, [{ name: "x.txt", content: `try ${i}` }], {
              ...a.headers,
              "x-zipline-filename": "fixed",
            }, way),
        ),
      );
      const ok = replies.filter((r) => r.status === 200);
      assert.equal(ok.length, 1);
      for (const r of replies.filter((r) => r.status !== 200)) {
        assert.deepEqual(r.body, {
          error: "file[0]: file with the same name already exists",
          statusCode: 400,
        });
      }
      const name = ok[0].body.files[0].name;
      assert.equal(name, "fixed.txt");
      const winner = replies.indexOf(ok[0]);
      assert.equal(await served(app, name), `try ${winner}`);
      assert.deepEqual(await app.services.store.files.usage(a.user.id), {
        bytes: `try ${winner}`.length,
        files: 1,
      });
      assert.deepEqual(await app.storedObjects(), ["fixed.txt"]);
    },
  );

  apiTest(
    `upload (${way.label}): quotas of several users stay exact under concurrent uploads`,
    async (app) => {
      const [a, b, admin] = [
        await actor(app, "USER"),
        await actor(app, "USER"),
        await actor(app, "ADMIN"),
      ];
      await setQuota(app, a.user.id, { filesQuota: "BY_FILES", maxFiles: 3 });
      await setQuota(app, b.user.id, { filesQuota: "BY_BYTES", maxBytes: "25b" });
      const send = (who: typeof a) =>
        uploadFiles(app, [{ name: "ten.txt", content: "0123456789" }], who.headers, way);
      // Interleaved, so that uploads of all three users are in flight together.
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => [send(a), send(b), send(admin)]).flat(),
      );
      const statuses = (i: number) => replies.filter((_, j) => j % 3 === i).map((r) => r.status);
      assert.equal(statuses(0).filter((s) => s === 200).length, 3);
      assert.ok(statuses(0).every((s) => s === 200 || s === 403));
      assert.equal(statuses(1).filter((s) => s === 200).length, 2);
      assert.ok(statuses(1).every((s) => s === 200 || s === 403));
      assert.deepEqual(statuses(2), Array(10).fill(200));
      const usage = (who: typeof a) => app.services.store.files.usage(who.user.id);
      assert.deepEqual(await usage(a), { bytes: 30, files: 3 });
      assert.deepEqual(await usage(b), { bytes: 20, files: 2 });
      assert.deepEqual(await usage(admin), { bytes: 100, files: 10 });
      assert.equal((await app.storedObjects()).length, 15);
    },
  );

  apiTest(
    `upload (${way.label}): a 200'd upload is served by an instance opened afresh on the same store and disk`,
    async (app) => {
      const a = await actor(app, "USER");
      const replies = await Promise.all(
        ["one", "two", "three"].map((content) =>
          uploadFiles(app, [{ name: `${content}.txt`, content }], a.headers, way)
        ),
      );
      assert.deepEqual(replies.map((r) => r.status), [200, 200, 200]);
      // A second handle on the store (another process would see the same) and on the files.
      const store = servingStore(
        app.kind === "kv"
          ? await openKvStore(`${app.processEnv.SERVICE_DATA_DIR}/ferry.kv`)
          : await openPostgresStore(app.storeUrl!),
        app.clock,
      );
      const datasource = new LocalDatasource(app.processEnv.SERVICE_DATASOURCE_LOCAL_DIRECTORY);
      try {
        const restarted = createApp({ ...app.services, store, datasource });
        for (const [i, content] of ["one", "two", "three"].entries()) {
          const { name } = replies[i].body.files[0];
          const res = await restarted.request(`http://ferry.test/raw/${name}`);
          assert.equal(res.status, 200);
          assert.equal(await res.text(), content);
        }
        assert.deepEqual(await store.files.usage(a.user.id), { bytes: 11, files: 3 });
      } finally {
        await store.close();
      }
    },
    { reachable: true },
  );
}
