/**
 * The password policy (`core/password_policy.ts`): a new password has at
 * least 8 characters wherever it is set, and is kept as typed, spaces
 * included; hashes imported from Zipline are kept, whatever their password.
 */
import assert from "node:assert/strict";
import { tokenFor } from "../../core/account.ts";
import { checkNewPassword, PASSWORD_TOO_SHORT } from "../../core/password_policy.ts";
import { verifyPassword } from "../../core/passwords.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

/** Seven characters: one short of the minimum. */
const SHORT = "seven77";

/** The 400 a short password gets from route validation (`body/<field> …`). */
const tooShort = (field = "password") => ({
  error: `body/${field} ${PASSWORD_TOO_SHORT}`,
  statusCode: 400,
});

async function login(app: TestApp, username: string, password: string) {
  return (await app.json("POST", "/api/auth/login", { username, password })).status;
}

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

/** Drops the fields that list every issue, keeping `{error, statusCode}`. */
const errorOf = (body: { error: string; statusCode: number }) => ({
  error: body.error,
  statusCode: body.statusCode,
});

apiTest("security #30.10: the first setup refuses a password under 8 characters", async (app) => {
  const short = await app.json("POST", "/api/setup", { username: "root", password: SHORT });
  assert.equal(short.status, 400);
  assert.deepEqual(errorOf(short.body), tooShort());
  assert.equal(short.body.error, "body/password Password must be at least 8 characters long");
  assert.deepEqual((await app.json("GET", "/api/setup")).body, { firstSetup: true });
  const ok = await app.json("POST", "/api/setup", { username: "root", password: "eight888" });
  assert.equal(ok.status, 200);
  assert.equal(await login(app, "root", "eight888"), 200);
});

apiTest("security #30.10: registration refuses a password under 8 characters", async (app) => {
  await settings(app, { featuresUserRegistration: true });
  const short = await app.json("POST", "/api/auth/register", {
    username: "alice",
    password: SHORT,
  });
  assert.deepEqual(errorOf(short.body), tooShort());
  assert.equal(await app.services.store.users.getByUsername("alice"), null);
  const ok = await app.json("POST", "/api/auth/register", {
    username: "alice",
    password: "eight888",
  });
  assert.equal(ok.status, 200);
});

apiTest(
  "security #30.10: an administrator's new user and reset refuse a password under 8 characters",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    const short = await app.json(
      "POST",
      "/api/users",
      { username: "bob", password: SHORT },
      admin.headers,
    );
    assert.deepEqual(errorOf(short.body), tooShort());
    assert.equal(await app.services.store.users.getByUsername("bob"), null);

    const bob = await actor(app, "USER", "bob");
    const reset = await app.json(
      "PATCH",
      `/api/users/${bob.user.id}`,
      { password: SHORT },
      admin.headers,
    );
    assert.deepEqual(errorOf(reset.body), tooShort());
    assert.equal(await login(app, "bob", "password"), 200, "the old password still works");
    assert.equal(await login(app, "bob", SHORT), 400);
  },
);

apiTest(
  "security #30.10: changing one's own password refuses one under 8 characters",
  async (app) => {
    const bob = await actor(app, "USER", "bob");
    const short = await app.json(
      "PATCH",
      "/api/user",
      { password: SHORT, currentPassword: "password" },
      bob.headers,
    );
    assert.deepEqual(errorOf(short.body), tooShort());
    assert.equal(await login(app, "bob", "password"), 200);
    const ok = await app.json(
      "PATCH",
      "/api/user",
      { password: "eight888", currentPassword: "password" },
      bob.headers,
    );
    assert.equal(ok.status, 200);
    assert.equal(await login(app, "bob", "eight888"), 200);
  },
);

apiTest(
  "security #30.10: leading and trailing spaces are kept, not trimmed, and count",
  async (app) => {
    const admin = await actor(app, "ADMIN");
    // Six characters and two spaces: eight as typed (trimmed, it would have been six).
    const spaced = " abcdef ";
    const created = await app.json(
      "POST",
      "/api/users",
      { username: "carol", password: spaced },
      admin.headers,
    );
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(await login(app, "carol", spaced), 200);
    assert.equal(await login(app, "carol", "abcdef"), 400, "the spaces are part of it");
    const stored = await app.services.store.users.getByUsername("carol");
    assert.ok(await verifyPassword(spaced, stored!.password!));

    const carol = { authorization: tokenFor(app.services, stored!) };
    const changed = await app.json(
      "PATCH",
      "/api/user",
      { password: "  new pass  ", currentPassword: spaced },
      carol,
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(await login(app, "carol", "  new pass  "), 200);
    assert.equal(await login(app, "carol", "new pass"), 400);
  },
);

Deno.test("security #30.10: the policy counts characters, not bytes or UTF-16 units", () => {
  assert.throws(() => checkNewPassword("🙂🙂🙂🙂🙂🙂🙂"), { message: PASSWORD_TOO_SHORT });
  checkNewPassword("🙂🙂🙂🙂🙂🙂🙂🙂");
  checkNewPassword("        ");
  assert.throws(() => checkNewPassword(""), { message: PASSWORD_TOO_SHORT });
  assert.throws(() => checkNewPassword("x".repeat(1001)), /at most 1000 characters/);
});
