/**
 * Imports are all or nothing (architecture rule 2): a bad record at the end
 * of a large document, a storage error midway and a killed import process
 * all leave the instance exactly as it was.
 */
import assert from "node:assert/strict";
import type { FileStore } from "../../db/files.ts";
import { recoverJournals } from "../../db/kv/journal.ts";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import type { Backend } from "../../db/store.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { REPO_ROOT } from "../helpers/process.ts";
import { freshDatabase, ignoreKind, STORE_KINDS } from "../helpers/stores.ts";
import { addSuperadmin, generatedUserId, writeGeneratedV4 } from "../helpers/transfer.ts";
import { actor } from "../helpers/users.ts";

/** Everything but the admin is absent, and the admin is unchanged. */
async function untouched(
  store: Pick<Backend, "users" | "files" | "urls">,
  admin: { id: string; updatedAt: Date },
) {
  const users = await store.users.list();
  assert.deepEqual(users.map((u) => u.id), [admin.id]);
  assert.deepEqual(users[0].updatedAt, admin.updatedAt, "the merged caller was restored");
  for await (const _ of store.files.iterate()) assert.fail("a file was left behind");
  for await (const _ of store.urls.iterate()) assert.fail("a URL was left behind");
  assert.equal((await store.files.usage(admin.id)).files, 0);
}

async function postFile(app: TestApp, path: string, headers: Record<string, string>) {
  const body = (await Deno.open(path)).readable;
  return await app.request("/api/server/import/v4", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body,
  });
}

apiTest("a corrupt record at the end of a large document leaves no trace", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await writeGeneratedV4(path, { users: 20, files: 5000, urls: 500, corruptLast: true });
    const res = await postFile(app, path, admin.headers);
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.deepEqual(body.issues[0].path, ["data", "files", "4999", "size"]);
    await untouched(app.services.store, admin.user);
  } finally {
    await Deno.remove(path);
  }
});

apiTest("a storage error midway through an import leaves no trace", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "admin");
  const real = app.services.store;
  let batches = 0;
  // A store whose transaction view fails on the second batch of files (the first has landed).
  const failing = (view: Backend): Backend =>
    new Proxy(view, {
      get(target, prop) {
        if (prop !== "files") return Reflect.get(target, prop, target);
        return new Proxy(target.files, {
          get(files, name) {
            if (name !== "createMany") return Reflect.get(files, name, files);
            return (...args: Parameters<FileStore["createMany"]>) => {
              if (++batches === 2) throw new Error("injected storage failure");
              return files.createMany(...args);
            };
          },
        });
      },
    });
  app.services.store = new Proxy(real, {
    get(target, prop) {
      if (prop !== "transaction") return Reflect.get(target, prop, target);
      return <T>(fn: (s: Backend) => Promise<T>) => target.transaction((view) => fn(failing(view)));
    },
  });
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await writeGeneratedV4(path, { users: 20, files: 3000, urls: 300 });
    // Merge generated user 0 into the caller, so the caller's record is changed, then undone.
    const doc = JSON.parse(await Deno.readTextFile(path));
    const res = await app.json("POST", "/api/server/import/v4", {
      export4: doc,
      config: { mergeCurrentUser: generatedUserId(0) },
    }, admin.headers);
    assert.equal(res.status, 500);
    assert.equal(batches, 2);
  } finally {
    app.services.store = real;
    await Deno.remove(path);
  }
  await untouched(real, admin.user);
});

for (const kind of STORE_KINDS) {
  Deno.test({
    name: `a killed import leaves no trace [${kind}]`,
    ignore: ignoreKind(kind),
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const dir = await Deno.makeTempDir();
      const db = kind === "postgres" ? await freshDatabase() : null;
      const env: Record<string, string> = db
        ? { DATABASE_URL: db.url, SERVICE_DATA_DIR: dir }
        : { SERVICE_DATA_DIR: dir };
      const open = () =>
        db ? openPostgresStore(db.url, { max: 2 }) : openKvStore(`${dir}/ferry.kv`);
      try {
        let store = await open();
        const admin = await addSuperadmin(store);
        await store.close();
        await writeGeneratedV4(`${dir}/doc.json`, { users: 20, files: 20000, urls: 1000 });

        const child = new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "--unstable-kv", "main.ts", "import", "v4", `${dir}/doc.json`],
          cwd: REPO_ROOT,
          env,
          stdout: "null",
          stderr: "piped",
        }).spawn();
        let seen = "";
        for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
          seen += text;
          if (/^[3-9]0% /m.test(seen)) break;
        }
        child.kill("SIGKILL");
        await child.status;
        assert.match(seen, /^[3-9]0% /m, "the import was under way when killed");

        if (!db) {
          // The journal's heartbeat stopped; once stale, recovery undoes it.
          const kv = await Deno.openKv(`${dir}/ferry.kv`);
          assert.equal(await recoverJournals(kv, Date.now() + 60_000), 1);
          kv.close();
        }
        store = await open();
        try {
          await untouched(store, admin);
        } finally {
          await store.close();
        }
      } finally {
        await db?.drop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
