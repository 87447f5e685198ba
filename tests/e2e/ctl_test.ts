/**
 * The operator commands of Zipline's `ziplinectl` (`list-users`, `set-user`,
 * `import-dir`, `read-config`, `export-config`), each run as a real
 * `deno run main.ts <command>` process against the instance's store (Deno KV
 * in a file, or a fresh PostgreSQL database) and datasource, its effect then
 * confirmed through the HTTP API.
 */
import assert from "node:assert/strict";
import { USERS_FRESH_MS } from "../../db/user_cache.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { REPO_ROOT } from "../helpers/process.ts";
import { uploadFiles } from "../helpers/files.ts";
import { redSquare } from "../helpers/images.ts";
import { actor } from "../helpers/users.ts";

/** What one command printed and its exit code. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `main.ts <args>` as its own process on `app`'s store and datasource. */
async function ctl(app: TestApp, ...args: string[]): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "main.ts", ...args],
    cwd: REPO_ROOT,
    env: { NO_COLOR: "1", ...app.processEnv },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** Asserts that `text` contains `part`, showing the text when not. */
function includes(text: string, part: string, message?: string): void {
  assert.ok(text.includes(part), `${message ?? "expected"} ${JSON.stringify(part)} in:\n${text}`);
}

/** Asserts that `run` succeeded, showing what it printed when not. */
function succeeded(run: Run): Run {
  assert.equal(run.code, 0, `exit ${run.code}\n${run.stdout}\n${run.stderr}`);
  return run;
}

const reachable = { reachable: true };

apiTest("conformance: list-users prints the users as ziplinectl does", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "administrator");
  await actor(app, "USER", "bob");
  const run = succeeded(await ctl(app, "list-users"));
  const users = JSON.parse(run.stdout);
  assert.deepEqual(users.map((u: { username: string }) => u.username), ["administrator", "bob"]);
  assert.deepEqual(Object.keys(users[0]), ["id", "username", "createdAt", "updatedAt", "role"]);
  assert.equal(users[0].id, admin.user.id);
  assert.equal(users[1].role, "USER");

  const one = succeeded(await ctl(app, "list-users", "-f", "-i", admin.user.id, "-e", "quota"));
  includes(one.stdout, '\n  {\n    "id"', "-f indents");
  assert.deepEqual(JSON.parse(one.stdout), [{ ...users[0], quota: null }]);
  for (const secret of ["password", "token", "totpSecret"]) {
    assert.ok(!one.stdout.includes(`"${secret}"`));
  }
  const unknown = await ctl(app, "list-users", "-e", "password");
  assert.equal(unknown.code, 2);
  includes(unknown.stderr, "unknown key password");
  const option = await ctl(app, "list-users", "--bogus");
  assert.equal(option.code, 2);
  includes(option.stderr, "Unknown option '--bogus'");
  includes(option.stderr, "try: main.ts list-users --help");
}, reachable);

apiTest("conformance: set-user changes role, password and quota as the API would", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "administrator");
  const bob = await actor(app, "USER", "bob");

  const role = succeeded(await ctl(app, "set-user", "-i", bob.user.id, "role", "admin"));
  includes(role.stdout, `updated user(${bob.user.id}) -> role = "ADMIN"`);
  const seen = await app.json("GET", `/api/users/${bob.user.id}`, undefined, admin.headers);
  assert.equal(seen.body.role, "ADMIN");

  const bad = await ctl(app, "set-user", "-i", bob.user.id, "role", "OWNER");
  assert.equal(bad.code, 1);
  includes(bad.stderr, "role: Invalid option");

  const password = succeeded(await ctl(app, "set-user", "-u", "bob", "password", "n3w secret"));
  includes(password.stdout, "password = *********");
  assert.ok(!password.stdout.includes("n3w secret"));
  const old = await app.json("POST", "/api/auth/login", { username: "bob", password: "password" });
  assert.notEqual(old.status, 200, "the old password no longer works");
  const login = await app.json("POST", "/api/auth/login", {
    username: "bob",
    password: "n3w secret",
  });
  assert.equal(login.status, 200);
  // The server honours another process's user changes once its user cache's second has passed.
  app.clock.advance(USERS_FRESH_MS);
  const stale = await app.json("GET", "/api/user", undefined, bob.headers);
  assert.equal(stale.status, 401, "the new password replaced the API token");

  succeeded(await ctl(app, "set-user", "-u", "administrator", "quota", "2 files"));
  app.clock.advance(USERS_FRESH_MS);
  const me = await app.json("GET", "/api/user", undefined, admin.headers);
  assert.equal(me.body.user.quota?.maxFiles, 2, "the quota reached the server");
  const ok = await uploadFiles(app, [{ name: "a.txt", content: "a" }, {
    name: "b.txt",
    content: "b",
  }], admin.headers);
  assert.equal(ok.status, 200);
  const over = await uploadFiles(app, [{ name: "c.txt", content: "c" }], admin.headers);
  assert.equal(over.status, 403);
  assert.equal(over.body.error, "Uploading this file would exceed your quota of 2 files");

  const incomplete = await ctl(app, "set-user", "-u", "bob", "quota", '{"filesType":"BY_BYTES"}');
  assert.equal(incomplete.code, 1);
  includes(incomplete.stderr, "maxBytes is required");
  const unchanged = await app.json("GET", `/api/users/${bob.user.id}`, undefined, admin.headers);
  assert.equal(unchanged.body.quota, null);
}, reachable);

/** A folder of three files to import. */
async function folderOfThree(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "ferry-import-" });
  await Deno.writeTextFile(`${dir}/notes.txt`, "some notes");
  await Deno.writeTextFile(`${dir}/data.json`, '{"a":1}');
  await Deno.writeTextFile(`${dir}/page.html`, "<p>hi</p>");
  await Deno.mkdir(`${dir}/nested`);
  return dir;
}

/** The names of the files `who` lists through the API. */
async function listed(app: TestApp, who: Record<string, string>): Promise<string[]> {
  const page = await app.json("GET", "/api/user/files?page=1&perpage=100", undefined, who);
  assert.equal(page.status, 200);
  return page.body.page.map((f: { name: string }) => f.name).sort();
}

apiTest("conformance: import-dir uploads a folder's files, keeping names or not", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "administrator");
  const bob = await actor(app, "USER", "bob");
  const dir = await folderOfThree();
  try {
    const kept = succeeded(await ctl(app, "import-dir", dir, "-u", "bob"));
    includes(kept.stderr, "100% 3/3 files");
    includes(kept.stderr, "Done importing 3 files.");
    includes(kept.stdout, "notes.txt -> notes.txt");
    assert.deepEqual(await listed(app, bob.headers), ["data.json", "notes.txt", "page.html"]);
    const raw = await app.request("/raw/notes.txt");
    assert.equal(await raw.text(), "some notes");

    const again = await ctl(app, "import-dir", dir, "-u", "bob");
    assert.equal(again.code, 1, "taken names are refused, as uploads are");
    includes(again.stderr, "not imported: notes.txt: file with the same name");

    const generated = succeeded(await ctl(app, "import-dir", dir, "--format", "random"));
    includes(generated.stderr, "100% 3/3 files");
    const names = await listed(app, admin.headers);
    assert.equal(names.length, 3, "into the SUPERADMIN named administrator");
    for (const name of ["data.json", "notes.txt", "page.html"]) {
      assert.ok(!names.includes(name), `${name} got a generated name`);
    }
    assert.deepEqual(names.map((n) => n.split(".").pop()).sort(), ["html", "json", "txt"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}, reachable);

apiTest(
  "conformance: import-dir is held to the owner's quota and disabled extensions",
  async (app) => {
    await actor(app, "SUPERADMIN", "administrator");
    const bob = await actor(app, "USER", "bob");
    await app.services.store.settings.update({ filesDisabledExtensions: ["html"] });
    const dir = await folderOfThree();
    try {
      succeeded(await ctl(app, "set-user", "-u", "bob", "quota", "1 file"));
      const run = await ctl(app, "import-dir", dir, "-u", "bob");
      assert.equal(run.code, 1);
      includes(run.stderr, "not imported: page.html: File extension .html is not allowed");
      includes(run.stderr, "exceed your quota of 1 files");
      includes(run.stderr, "Done importing 1 files. 2 failed.");
      assert.deepEqual(await listed(app, bob.headers), ["data.json"]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
  reachable,
);

apiTest("conformance: import-dir makes thumbnails and refuses reserved names", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "administrator");
  await app.services.store.settings.update({ featuresThumbnailsInstantaneous: true });
  const folder = await app.json("POST", "/api/user/folders", { name: "imported" }, admin.headers);
  assert.equal(folder.status, 200);
  const dir = await Deno.makeTempDir({ prefix: "ferry-import-" });
  try {
    await Deno.writeFile(`${dir}/red.png`, redSquare(64));
    await Deno.writeTextFile(`${dir}/.partial`, "not a file name Ferry gives");
    const run = await ctl(app, "import-dir", dir, "-f", folder.body.id);
    assert.equal(run.code, 1);
    includes(run.stderr, "not imported: .partial:");
    includes(run.stderr, "Done importing 1 files. 1 failed.");
    const page = await app.json(
      "GET",
      `/api/user/files?page=1&folder=${folder.body.id}`,
      undefined,
      admin.headers,
    );
    assert.equal(page.body.page.length, 1);
    const [png] = page.body.page;
    assert.equal(png.name, "red.png");
    assert.equal(png.thumbnail?.path, `.thumbnail.${png.id}.jpg`, "made before the command ended");
    const other = await ctl(app, "import-dir", dir, "-u", "nobody");
    assert.equal(other.code, 1);
    includes(other.stderr, "User not found: nobody");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}, reachable);

apiTest("conformance: read-config refuses an invalid file and changes nothing", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "administrator");
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/bad.json`,
      JSON.stringify({ filesLength: "twelve", coreReturnHttpsUrls: true }),
    );
    const bad = await ctl(app, "read-config", `${dir}/bad.json`);
    assert.equal(bad.code, 1);
    includes(bad.stderr, "filesLength: Invalid input: expected number");
    await Deno.writeTextFile(`${dir}/broken.json`, "{filesLength: 9");
    const broken = await ctl(app, "read-config", `${dir}/broken.json`);
    assert.equal(broken.code, 1);
    includes(broken.stderr, `cannot read ${dir}/broken.json as JSON`);

    const settings = await app.json("GET", "/api/server/settings", undefined, admin.headers);
    assert.equal(settings.body.settings.coreReturnHttpsUrls, false, "the good key was not applied");
    const audit = await app.json("GET", "/api/server/audit", undefined, admin.headers);
    assert.equal(audit.status, 200);
    assert.equal(JSON.stringify(audit.body).includes("filesLength"), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}, reachable);

apiTest("conformance: export-config then read-config restores the settings", async (app) => {
  const admin = await actor(app, "SUPERADMIN", "administrator");
  const dir = await Deno.makeTempDir();
  try {
    const patch = { filesLength: 9, httpWebhookOnUpload: "https://hooks.example/t0ken" };
    assert.equal(
      (await app.json("PATCH", "/api/server/settings", patch, admin.headers)).status,
      200,
    );
    succeeded(await ctl(app, "export-config", `${dir}/settings.json`));
    const file = JSON.parse(await Deno.readTextFile(`${dir}/settings.json`));
    assert.equal(file.filesLength, 9);
    assert.equal(file.httpWebhookOnUpload, "https://hooks.example/t0ken", "nothing is masked");
    assert.equal((await Deno.stat(`${dir}/settings.json`)).mode! & 0o777, 0o600);

    const env = succeeded(await ctl(app, "export-config"));
    includes(env.stdout, "SERVICE_FILES_LENGTH=9\n");
    assert.ok(!env.stdout.includes("SERVICE_FILES_ROUTE="), "defaults left out");
    const help = succeeded(await ctl(app, "export-config", "--help"));
    includes(help.stdout, "Nothing is masked");

    const undo = { filesLength: 20, httpWebhookOnUpload: null, filesRoute: "/f" };
    assert.equal(
      (await app.json("PATCH", "/api/server/settings", undo, admin.headers)).status,
      200,
    );
    const read = succeeded(await ctl(app, "read-config", `${dir}/settings.json`));
    includes(read.stdout, "3 setting(s) changed");
    await app.services.settings.reload();
    const back = await app.json("GET", "/api/server/settings", undefined, admin.headers);
    assert.equal(back.body.settings.filesLength, 9);
    assert.equal(back.body.settings.filesRoute, "/u");
    assert.equal(back.body.settings.httpWebhookOnUpload, "https://hooks.example/t0ken");
    const audit = await app.json("GET", "/api/server/audit", undefined, admin.headers);
    includes(JSON.stringify(audit.body), "(command line)");

    const shown = succeeded(await ctl(app, "read-config"));
    assert.equal(JSON.parse(shown.stdout).filesLength, 9);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}, reachable);

apiTest(
  "security #30.10: the operator commands refuse a password under 8 characters",
  async (app) => {
    await actor(app, "USER", "bob");
    const create = await ctl(app, "user", "create", "--username", "op", "--password", "seven77");
    assert.equal(create.code, 1, create.stdout + create.stderr);
    includes(create.stderr, "Password must be at least 8 characters long");
    const reset = await ctl(
      app,
      "user",
      "reset-password",
      "--username",
      "bob",
      "--password",
      "short",
    );
    assert.equal(reset.code, 1);
    includes(reset.stderr, "Password must be at least 8 characters long");
    const set = await ctl(app, "set-user", "-u", "bob", "password", "short");
    assert.equal(set.code, 1);
    includes(set.stderr, "password: Password must be at least 8 characters long");
    assert.equal(await app.services.store.users.getByUsername("op"), null);
    const login = await app.json("POST", "/api/auth/login", {
      username: "bob",
      password: "password",
    });
    assert.equal(login.status, 200, "bob's password is unchanged");
    // Eight characters, spaces kept, pass.
    succeeded(await ctl(app, "user", "create", "--username", "op", "--password", " eight8 "));
    const op = await app.json("POST", "/api/auth/login", { username: "op", password: " eight8 " });
    assert.equal(op.status, 200);
  },
  reachable,
);
