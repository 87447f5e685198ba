/**
 * What Zipline v4's own web client reads from the API, field by field, so
 * that its dashboard and uploaders work against Ferry unchanged (issue #21).
 * Each test names the client behaviour that depends on the shape.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

async function settings(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.updateSettings(values);
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
      showUserSpecific: true,
    });
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
