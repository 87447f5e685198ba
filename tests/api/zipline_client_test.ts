/**
 * What Zipline v4's own web client reads from the API, field by field, so
 * that its dashboard and uploaders work against Ferry unchanged (issue #21).
 * Each test names the client behaviour that depends on the shape.
 */
import assert from "node:assert/strict";
import { Secret, TOTP } from "otpauth";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { recordMetrics } from "../../core/tasks/metrics.ts";
import { uploadFiles, uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update(values);
  await app.services.settings.reload();
}

apiTest(
  "zipline client: every dashboard page reads the nested web settings (features.metrics, mfa.totp, website.theme)",
  async (app) => {
    const user = await actor(app, "USER");
    await settings(app, {
      featuresMetricsAdminOnly: true,
      featuresThumbnailsNumberThreads: 2,
      mfaTotpEnabled: true,
      mfaTotpIssuer: "Quay",
      websiteThemeDefault: "builtin:dark_blue",
    });
    const reply = await app.json("GET", "/api/server/settings/web", undefined, user.headers);
    assert.equal(reply.status, 200);
    const { config } = reply.body;
    assert.deepEqual(config.features.metrics, {
      enabled: true,
      adminOnly: true,
      showUserSpecific: false,
    });
    const admin = await actor(app, "ADMIN");
    const seenByAdmin = await app.json("GET", "/api/server/settings/web", undefined, admin.headers);
    assert.equal(
      seenByAdmin.body.config.features.metrics.showUserSpecific,
      true,
      "an administrator gets the per-user metrics, so its page shows them",
    );
    assert.deepEqual(config.features.thumbnails, {
      enabled: true,
      num_threads: 2,
      format: "jpg",
      instantaneous: false,
    });
    assert.deepEqual(config.mfa.totp, { enabled: true, issuer: "Quay" });
    assert.equal(config.mfa.passkeys, false);
    assert.deepEqual(config.website.theme, {
      default: "builtin:dark_blue",
      dark: "builtin:dark_gray",
      light: "builtin:light_gray",
    });
    // The flat form stays beside it, for Ferry's own readers.
    assert.equal(config.features.metricsAdminOnly, true);
    assert.equal(config.mfa.totpEnabled, true);
    assert.equal(config.website.themeDefault, "builtin:dark_blue");
    // Fields the pages read that were already where Zipline has them.
    assert.equal(config.invites.enabled, true);
    assert.equal(config.files.maxFileSize, "100mb");
    assert.equal(config.chunks.enabled, true);
    assert.equal(config.pwa.enabled, false);
  },
);

apiTest(
  "zipline client: the sign-in and settings pages offer passkeys when mfa.passkeys is true",
  async (app) => {
    const user = await actor(app, "USER");
    await settings(app, {
      mfaPasskeysEnabled: true,
      mfaPasskeysRpID: "localhost",
      mfaPasskeysOrigin: "http://localhost",
    });
    const reply = await app.json("GET", "/api/server/settings/web", undefined, user.headers);
    assert.equal(reply.body.config.mfa.passkeys, true);
    assert.equal(reply.body.config.mfa.passkeysEnabled, true);
  },
);

apiTest(
  "zipline client: the Discord webhook and passkey settings save under Zipline's names",
  async (app) => {
    const root = await actor(app, "SUPERADMIN");
    // The Discord section sends its form as one PATCH, under Zipline's names.
    const saved = await app.json("PATCH", "/api/server/settings", {
      discordWebhookUrl: "https://chat.example/hooks/1/token",
      discordUsername: "Quay",
      discordAvatarUrl: null,
    }, root.headers);
    assert.equal(saved.status, 200);
    assert.equal(saved.body.settings.chatWebhookUrl, "https://chat.example/hooks/1/token");
    assert.equal(saved.body.settings.discordWebhookUrl, "https://chat.example/hooks/1/token");
    const passkeys = await app.json("PATCH", "/api/server/settings", {
      mfaPasskeys: true,
      mfaPasskeysRpID: "localhost",
      mfaPasskeysOrigin: "http://localhost",
    }, root.headers);
    assert.equal(passkeys.status, 200);

    // The form reads them back by the same names; the spec's names stand beside them.
    const seen = await app.json("GET", "/api/server/settings", undefined, root.headers);
    assert.equal(seen.body.settings.discordUsername, "Quay");
    assert.equal(seen.body.settings.chatUsername, "Quay");
    assert.equal(seen.body.settings.discordOnUploadEmbed, null);
    assert.equal(seen.body.settings.mfaPasskeys, true);
    assert.equal(seen.body.settings.mfaPasskeysEnabled, true);
    assert.equal(app.services.settings.get("chatUsername"), "Quay");

    // An ADMIN reads the secret masked under both names.
    const admin = await actor(app, "ADMIN");
    const masked = await app.json("GET", "/api/server/settings", undefined, admin.headers);
    assert.equal(masked.body.settings.discordWebhookUrl, "********");
    assert.equal(masked.body.settings.chatWebhookUrl, "********");

    // The audit trail speaks of the spec's names.
    const audit = await app.json("GET", "/api/server/audit", undefined, root.headers);
    assert.deepEqual(
      audit.body.map((r: { changes: { key: string }[] }) => r.changes.map((c) => c.key).sort()),
      [["mfaPasskeysEnabled", "mfaPasskeysOrigin", "mfaPasskeysRpID"], [
        "chatUsername",
        "chatWebhookUrl",
      ]],
    );
  },
);

apiTest(
  "zipline client: a form sent back with both names changes the one that differs",
  async (app) => {
    const root = await actor(app, "SUPERADMIN");
    const shown = (await app.json("GET", "/api/server/settings", undefined, root.headers)).body;
    const back = await app.json("PATCH", "/api/server/settings", {
      ...shown.settings,
      discordUsername: "Quay",
    }, root.headers);
    assert.equal(back.status, 200);
    assert.equal(back.body.settings.chatUsername, "Quay");
    const again = await app.json("PATCH", "/api/server/settings", {
      ...back.body.settings,
      chatUsername: "Ferry",
    }, root.headers);
    assert.equal(again.body.settings.discordUsername, "Ferry");

    const both = await app.json("PATCH", "/api/server/settings", {
      chatUsername: "one",
      discordUsername: "two",
    }, root.headers);
    assert.equal(both.status, 400);
    assert.deepEqual(both.body.issues.map((i: { path: string[] }) => i.path), [["chatUsername"]]);
    assert.equal(app.services.settings.get("chatUsername"), "Ferry");
  },
);

apiTest(
  "zipline client: a setting the environment fixes is tampered by the spec's name, refused by either",
  async (app) => {
    const root = await actor(app, "SUPERADMIN");
    const res = await app.json("PATCH", "/api/server/settings", {
      discordUsername: "other",
    }, root.headers);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.issues.map((i: { path: string[] }) => i.path), [["chatUsername"]]);
    const seen = await app.json("GET", "/api/server/settings", undefined, root.headers);
    assert.deepEqual(seen.body.tampered, ["chatUsername"]);
    assert.equal(seen.body.settings.discordUsername, "Fixed");
  },
  { env: { SERVICE_CHAT_USERNAME: "Fixed" } },
);

apiTest(
  "zipline client: after enabling TOTP the settings page offers Disable 2FA (user.totpSecret is a marker)",
  async (app) => {
    await settings(app, { mfaTotpEnabled: true });
    const alice = await actor(app, "USER", "alice");
    const before = await app.json("GET", "/api/user", undefined, alice.headers);
    assert.equal(before.body.user.totpSecret, null);

    const setup = await app.json("GET", "/api/user/mfa/totp", undefined, alice.headers);
    const secret: string = setup.body.secret;
    const code = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 })
      .generate({ timestamp: app.clock.now() });
    const enabled = await app.json("POST", "/api/user/mfa/totp", {
      code,
      secret,
      currentPassword: "password",
    }, alice.headers);
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.totpSecret, "********");

    const after = await app.json("GET", "/api/user", undefined, alice.headers);
    assert.equal(after.body.user.totpSecret, "********");
    assert.equal(after.body.user.totp, true);
    assert.ok(!JSON.stringify(after.body).includes(secret), "the secret never leaves");
  },
);

apiTest(
  "zipline client: the theme pickers list /api/server/themes and apply the server's default",
  async (app) => {
    await settings(app, { websiteThemeDefault: "builtin:dark_blue" });
    // Asked on every page, the sign-in page too: no session needed.
    const reply = await app.json("GET", "/api/server/themes");
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.defaultTheme, {
      default: "builtin:dark_blue",
      dark: "builtin:dark_gray",
      light: "builtin:light_gray",
    });
    const ids = reply.body.themes.map((t: { id: string }) => t.id);
    for (const id of ["builtin:dark_gray", "builtin:light_gray", "builtin:dark_blue"]) {
      assert.ok(ids.includes(id), id);
    }
    for (const theme of reply.body.themes) {
      assert.equal(typeof theme.name, "string");
      assert.ok(["dark", "light"].includes(theme.colorScheme));
      assert.equal(typeof theme.primaryColor, "string");
      assert.equal(typeof theme.mainBackgroundColor, "string");
      for (const provider of ["google", "github", "oidc", "discord"]) {
        assert.equal(theme.colors[provider].length, 10, `${theme.id} ${provider}`);
      }
    }
  },
);

apiTest(
  "zipline client: the text upload page offers codeMap's languages and uploads typed text",
  async (app) => {
    const user = await actor(app, "USER");
    const reply = await app.json("GET", "/api/server/settings/web", undefined, user.headers);
    const codeMap: { ext: string; mime: string; name: string }[] = reply.body.codeMap;
    assert.equal(codeMap.length, 42);
    assert.equal(new Set(codeMap.map((l) => l.ext)).size, 42, "one entry an extension");
    for (const language of codeMap) {
      assert.deepEqual(Object.keys(language).sort(), ["ext", "mime", "name"]);
    }
    // The page's default choice, and one it highlights.
    assert.deepEqual(codeMap.find((l) => l.ext === "txt"), {
      ext: "txt",
      mime: "text/plain",
      name: "Plain Text",
    });
    const python = codeMap.find((l) => l.ext === "py")!;
    assert.deepEqual(python, { ext: "py", mime: "text/x-python", name: "Python" });

    // It names the file text.<ext> and sends the language's type.
    const file = await uploadOne(app, user.headers, "print('hi')\n", "text.py", python.mime);
    const stored = await app.json("GET", `/api/user/files/${file.id}`, undefined, user.headers);
    assert.equal(stored.body.type, "text/x-python");
  },
);

apiTest("zipline client: the version badge shows data.version.tag", async (app) => {
  const user = await actor(app, "USER");
  const reply = await app.json("GET", "/api/version", undefined, user.headers);
  assert.equal(reply.status, 200);
  const { version, commit } = app.services.build;
  assert.deepEqual(reply.body.data, {
    isUpstream: false,
    isRelease: true,
    isLatest: true,
    version: { tag: `v${version}`, sha: commit },
  });
  assert.equal(reply.body.cached, false);
  // Ferry's own fields stay.
  assert.equal(reply.body.version, version);
  assert.deepEqual(reply.body.details, { version, sha: commit });
});

/**
 * A stand-in version service on loopback: answers `answer` as JSON (or hangs,
 * or answers what a function makes of the request) and records each ask.
 */
function versionService(answer: unknown | "hang" | ((req: Request) => Response)) {
  const asked: URL[] = [];
  const hanging = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    asked.push(new URL(req.url));
    if (answer === "hang") await hanging.promise;
    return typeof answer === "function" ? answer(req) : Response.json(answer);
  });
  return {
    asked,
    url: `http://127.0.0.1:${server.addr.port}/ignored/path`,
    async close() {
      hanging.resolve();
      await server.shutdown();
    },
  };
}

const NEWER = {
  isUpstream: true,
  isRelease: true,
  isLatest: false,
  version: { tag: "v0.0.0-test", sha: "abc", url: "https://example.test/v0" },
  latest: { tag: "v9.0.0", url: "https://example.test/v9" },
  extra: "dropped",
};

apiTest(
  "zipline client: with version checking on, the badge shows the version service's word, asked once per 6 hours",
  async (app) => {
    const user = await actor(app, "USER");
    const service = versionService(NEWER);
    try {
      await settings(app, {
        featuresVersionChecking: true,
        featuresVersionAPI: service.url,
        webhooksAllowedHosts: ["127.0.0.1"],
      });
      const first = await app.json("GET", "/api/version", undefined, user.headers);
      assert.equal(first.status, 200);
      const { extra: _, ...expected } = NEWER;
      assert.deepEqual(first.body.data, expected);
      assert.equal(first.body.cached, false);
      assert.equal(service.asked.length, 1);
      assert.equal(service.asked[0].pathname, "/");
      assert.deepEqual(JSON.parse(service.asked[0].searchParams.get("details")!), {
        version: app.services.build.version,
        sha: app.services.build.commit,
      });

      const again = await app.json("GET", "/api/version", undefined, user.headers);
      assert.deepEqual([again.body.data, again.body.cached], [expected, true]);
      assert.equal(service.asked.length, 1, "remembered");
      app.clock.advance(6 * 60 * 60 * 1000);
      const later = await app.json("GET", "/api/version", undefined, user.headers);
      assert.equal(later.body.cached, false);
      assert.equal(service.asked.length, 2, "asked again after 6 hours");

      await settings(app, { featuresVersionChecking: false });
      const off = await app.json("GET", "/api/version", undefined, user.headers);
      assert.equal(off.body.data.isLatest, true, "off: the build's own answer");
      assert.equal(service.asked.length, 2, "off: nothing asked");
    } finally {
      await service.close();
    }
  },
);

apiTest(
  "zipline client: an unreachable version service answers the build quietly and is not asked on every call",
  async (app) => {
    const user = await actor(app, "USER");
    const own = {
      isUpstream: false,
      isRelease: true,
      isLatest: true,
      version: { tag: `v${app.services.build.version}`, sha: app.services.build.commit },
    };
    // Nothing listens on port 1; a service that never answers is cut off by the timeout.
    const hanging = versionService("hang");
    try {
      for (const api of ["http://127.0.0.1:1/", hanging.url]) {
        await settings(app, {
          featuresVersionChecking: true,
          featuresVersionAPI: api,
          webhooksAllowedHosts: ["127.0.0.1"],
        });
        const reply = await app.json("GET", "/api/version", undefined, user.headers);
        assert.equal(reply.status, 200);
        assert.deepEqual([reply.body.data, reply.body.cached], [own, false]);
        const again = await app.json("GET", "/api/version", undefined, user.headers);
        assert.deepEqual([again.body.data, again.body.cached], [own, true], "not asked again");
      }
      assert.equal(hanging.asked.length, 1);
      const warned = app.logger.lines.filter((l) =>
        l.message === "the version service could not be asked"
      );
      assert.equal(warned.length, 2);
      // Ten minutes on, it is asked again.
      app.clock.advance(10 * 60 * 1000);
      await app.json("GET", "/api/version", undefined, user.headers);
      assert.equal(hanging.asked.length, 2);
    } finally {
      await hanging.close();
    }
  },
);

apiTest(
  "security #30.6: the version service is not asked inside unless allowed, redirects included, " +
    "and its answer is read up to 64 KiB",
  async (app) => {
    const user = await actor(app, "USER");
    const own = {
      isUpstream: false,
      isRelease: true,
      isLatest: true,
      version: { tag: `v${app.services.build.version}`, sha: app.services.build.commit },
    };
    const huge = { ...NEWER, padding: "x".repeat(64 * 1024) };
    const service = versionService(() => Response.json(huge));
    const redirecting = versionService(() =>
      new Response(null, { status: 302, headers: { location: "http://10.0.0.7/" } })
    );
    const warnings = () =>
      app.logger.lines.filter((l) => l.message === "the version service could not be asked")
        .map((l) => String(l.fields?.error));
    try {
      // On loopback, without the allow-list: refused before anything is asked.
      await settings(app, { featuresVersionChecking: true, featuresVersionAPI: service.url });
      const refused = await app.json("GET", "/api/version", undefined, user.headers);
      assert.deepEqual([refused.body.data, refused.body.cached], [own, false]);
      assert.equal(service.asked.length, 0);
      assert.match(warnings().at(-1)!, /^Refused: 127\.0\.0\.1 is a loopback address/);

      // Allowed, but answering more than 64 KiB: the ask fails, the build's own answer shows.
      await settings(app, { webhooksAllowedHosts: ["127.0.0.1"] });
      app.clock.advance(10 * 60 * 1000);
      const big = await app.json("GET", "/api/version", undefined, user.headers);
      assert.deepEqual(big.body.data, own);
      assert.equal(service.asked.length, 1);
      assert.match(warnings().at(-1)!, /larger than 65536 bytes/);

      // An allowed service redirecting inside: the redirect is refused.
      await settings(app, { featuresVersionAPI: redirecting.url });
      const redirected = await app.json("GET", "/api/version", undefined, user.headers);
      assert.deepEqual(redirected.body.data, own);
      assert.equal(redirecting.asked.length, 1);
      assert.match(warnings().at(-1)!, /^Refused: 10\.0\.0\.7 is a private address/);
    } finally {
      await service.close();
      await redirecting.close();
    }
  },
);

apiTest(
  "zipline client: the users page shows a created or edited user as just updated, with its view",
  async (app) => {
    const root = await actor(app, "SUPERADMIN");
    const created = await app.json("POST", "/api/users", {
      username: "alice",
      password: "alicepass123",
    }, root.headers);
    assert.equal(created.status, 200);
    const at = new Date(app.clock.now()).toISOString();
    assert.equal(created.body.createdAt, at);
    assert.equal(created.body.updatedAt, at);
    assert.equal(created.body.view.enabled, false);

    app.clock.advance(60_000);
    const edited = await app.json("PATCH", `/api/users/${created.body.id}`, {
      role: "ADMIN",
    }, root.headers);
    assert.equal(edited.status, 200);
    assert.equal(edited.body.role, "ADMIN");
    assert.equal(edited.body.updatedAt, new Date(app.clock.now()).toISOString());
    assert.equal(edited.body.createdAt, at);
    assert.equal(typeof edited.body.view, "object");
  },
);

apiTest(
  "zipline client: the navigation lists Ferry's own help by default, as paths its links follow",
  async (app) => {
    const user = await actor(app, "USER");
    const reply = await app.json("GET", "/api/server/settings/web", undefined, user.headers);
    assert.deepEqual(reply.body.config.website.externalLinks, [
      { name: "API reference", url: "/api/docs" },
      { name: "Documentation", url: "/dashboard/help" },
    ]);
  },
);

apiTest(
  "zipline client: a folder's file table shows each file's tags",
  async (app) => {
    const a = await actor(app, "USER");
    const tag = await app.json(
      "POST",
      "/api/user/tags",
      { name: "work", color: "#336699" },
      a.headers,
    );
    assert.equal(tag.status, 200);
    const file = await uploadOne(app, a.headers);
    const plain = await uploadOne(app, a.headers, "other", "other.txt");
    assert.equal(
      (await app.json("PATCH", `/api/user/files/${file.id}`, { tags: [tag.body.id] }, a.headers))
        .status,
      200,
    );
    const folder = await app.json("POST", "/api/user/folders", {
      name: "docs",
      files: [file.id, plain.id],
    }, a.headers);
    assert.equal(folder.status, 200);
    const expected = [{
      id: tag.body.id,
      name: "work",
      color: "#336699",
      createdAt: tag.body.createdAt,
      updatedAt: tag.body.updatedAt,
    }];
    const tagsById = (files: { id: string; tags: unknown[] }[]) =>
      Object.fromEntries(files.map((f) => [f.id, f.tags]));
    assert.deepEqual(tagsById(folder.body.files), { [file.id]: expected, [plain.id]: [] });

    const one = await app.json("GET", `/api/user/folders/${folder.body.id}`, undefined, a.headers);
    assert.deepEqual(tagsById(one.body.files), { [file.id]: expected, [plain.id]: [] });
    const list = await app.json("GET", "/api/user/folders", undefined, a.headers);
    assert.deepEqual(tagsById(list.body[0].files), { [file.id]: expected, [plain.id]: [] });
  },
);

apiTest(
  "zipline client: the invites table shows who created a new invite",
  async (app) => {
    const admin = await actor(app, "ADMIN", "carol");
    const made = await app.json("POST", "/api/auth/invites", { expiresAt: "1d" }, admin.headers);
    assert.equal(made.status, 200);
    assert.deepEqual(made.body.inviter, { id: admin.user.id, username: "carol", role: "ADMIN" });
    assert.equal(made.body.inviterId, admin.user.id);
    const listed = await app.json("GET", "/api/auth/invites", undefined, admin.headers);
    assert.deepEqual(listed.body[0].inviter, made.body.inviter);
  },
);

apiTest(
  "zipline client: the metrics page loads statistics (a Metric list, newest first, the first in full)",
  async (app) => {
    const a = await actor(app, "USER", "alice");
    // An administrator's page, which gets the per-user tables (a USER's has them empty).
    const admin = await actor(app, "ADMIN");
    await uploadOne(app, a.headers, "12345", "a.txt");
    await recordMetrics(app.services);
    app.clock.advance(60_000);
    await recordMetrics(app.services);
    const now = app.clock.now();
    // The page asks for the last seven days.
    const reply = await app.json(
      "GET",
      `/api/stats?from=${new Date(now - 7 * 86_400_000).toISOString()}&to=${
        new Date(now).toISOString()
      }`,
      undefined,
      admin.headers,
    );
    assert.equal(reply.status, 200);
    assert.ok(Array.isArray(reply.body) && reply.body.length === 2, "data?.length");
    const [recent, older] = reply.body;
    assert.deepEqual(Object.keys(recent).sort(), ["createdAt", "data", "id", "updatedAt"]);
    // The cards and tables read the first; the graphs read every one's totals.
    assert.deepEqual(recent.data.filesUsers, [{ username: "alice", sum: 1, storage: 5, views: 0 }]);
    assert.deepEqual(recent.data.types, [{ type: "text/plain", sum: 1 }]);
    for (const metric of [recent, older]) {
      for (const field of ["files", "urls", "users", "storage", "fileViews", "urlViews"]) {
        assert.equal(typeof metric.data[field], "number", field);
      }
    }
    assert.ok(Date.parse(recent.createdAt) > Date.parse(older.createdAt));
  },
);

for (const datasource of ["local", "s3"] as const) {
  apiTest(
    `zipline client: the server page shows the datasource and its storage (${datasource}, administrators only)`,
    async (app) => {
      const admin = await actor(app, "ADMIN");
      const user = await actor(app, "USER");
      await uploadOne(app, user.headers, "twelve bytes", "a.txt");
      const refused = await app.json("GET", "/api/server/status", undefined, user.headers);
      assert.equal(refused.status, 403);
      assert.equal((await app.json("GET", "/api/server/status")).status, 401);

      const reply = await app.json("GET", "/api/server/status", undefined, admin.headers);
      assert.equal(reply.status, 200);
      assert.equal(reply.body.datasource, datasource);
      const { used, total, available, path } = reply.body.storage;
      if (datasource === "s3") {
        assert.deepEqual({ used, total, available }, { used: 12, total: null, available: null });
        assert.match(path, /^[a-z0-9-]+$/, "the bucket's name");
      } else {
        assert.ok(total > 0 && used > 0 && available > 0 && used + available <= total);
        assert.ok(path.startsWith("/"), "the upload directory");
      }
    },
    { datasource },
  );
}

apiTest(
  "zipline client: with filesExtensionlessUrls, upload links leave the extension out and still open the file",
  async (app) => {
    const user = await actor(app, "USER");
    const before = await uploadOne(app, user.headers, "first", "first.txt");
    assert.ok(before.url.endsWith(`/u/${before.name}`), "off: the whole name");
    const stem = before.name.replace(/\.txt$/, "");
    assert.equal((await app.request(`/raw/${stem}`)).status, 404, "off: no name without extension");

    await settings(app, { filesExtensionlessUrls: true });
    const archive = await uploadFiles(app, [{ name: "logs.tar.gz", content: "gz" }], {
      ...user.headers,
      "x-zipline-format": "name",
    });
    assert.equal(archive.status, 200);
    assert.equal(archive.body.files[0].name, "logs.tar.gz");
    assert.equal(archive.body.files[0].url, "http://ferry.test/u/logs", "a double extension whole");
    const raw = await app.request("/raw/logs");
    assert.equal(raw.status, 200);
    assert.equal(await raw.text(), "gz");
    assert.equal((await app.request("/raw/logs.tar")).status, 404, "only the whole extension");

    // The files list carries the same link; a file named exactly so wins.
    const listed = await app.json("GET", "/api/user/files?page=1", undefined, user.headers);
    const first = listed.body.page.find((f: { id: string }) => f.id === before.id);
    assert.equal(first.url, `/u/${stem}`);
    assert.equal(await (await app.request(`/raw/${stem}`)).text(), "first");
    await uploadFiles(app, [{ name: stem, content: "exact" }], {
      ...user.headers,
      "x-zipline-format": "name",
    });
    assert.equal(await (await app.request(`/raw/${stem}`)).text(), "exact");
  },
);

apiTest(
  "zipline client: the files route sends text files, and every file of an owner with view.enabled, to /view/<name>",
  async (app) => {
    const user = await actor(app, "USER");
    const other = await actor(app, "USER", "other");
    const text = await uploadOne(app, user.headers, "notes", "notes.md", "text/markdown");
    const image = await uploadOne(app, user.headers, "png", "cat.png", "image/png");
    const theirs = await uploadOne(app, other.headers, "png", "dog.png", "image/png");
    const status = async (path: string) => {
      const res = await app.request(path, { redirect: "manual" });
      await res.body?.cancel();
      return [res.status, res.headers.get("location")];
    };

    // Zipline's rule: text/* goes to its page (no query parameter bypasses it); others are bytes.
    for (const query of ["", "?download=true", "?raw=true"]) {
      assert.deepEqual(await status(`/u/${text.name}${query}`), [302, `/view/${text.name}`]);
    }
    assert.deepEqual(await status(`/u/${image.name}`), [200, null]);
    assert.deepEqual(await status(`/raw/${text.name}`), [200, null], "/raw always serves bytes");
    const page = await app.request(`/view/${text.name}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /text-preview/);

    // The owner's view page on: every file of theirs goes to its page; others' files do not.
    await app.json("PATCH", "/api/user", { view: { enabled: true } }, user.headers);
    assert.deepEqual(await status(`/u/${image.name}`), [302, `/view/${image.name}`]);
    assert.deepEqual(await status(`/u/${theirs.name}`), [200, null]);

    // Text pages off: text bytes are served (the view page still applies while enabled).
    await app.json("PATCH", "/api/user", { view: { enabled: false, disableTextFiles: true } }, {
      ...user.headers,
    });
    assert.deepEqual(await status(`/u/${text.name}`), [200, null]);
    assert.deepEqual(await status(`/u/no-such-file.txt`), [404, null]);

    // With extensionless links, the page named is the file's whole name.
    await app.json("PATCH", "/api/user", { view: { enabled: true } }, user.headers);
    await settings(app, { filesExtensionlessUrls: true });
    const stem = image.name.replace(/\.png$/, "");
    assert.deepEqual(await status(`/u/${stem}`), [302, `/view/${image.name}`]);
  },
);
