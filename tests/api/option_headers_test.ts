/**
 * Upload option headers (`x-service-*`, `x-zipline-*`) are bounded in length
 * in one place (`optionHeaders`, core/files/options.ts): a longer value is a
 * 400 naming the header, before anything reads it — on both stores, for plain
 * and chunked uploads, nothing stored.
 */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";
import { bytes, chunk } from "../helpers/chunks.ts";
import { uploadFiles } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

/** The bounds: ids looked up in the store 100 characters, every other option 1000. */
const OPTION_MAX_LENGTH = 1000;
const optionLimit = (name: string) =>
  name === "p-identifier" || name === "folder" ? 100 : OPTION_MAX_LENGTH;

const tooLong = (header: string, limit: number) => ({
  error: `bad options[${header.replace(/^x-(service|zipline)-/, "")}]: ${header} is longer ` +
    `than ${limit} characters`,
  statusCode: 400,
});

apiTest(
  "conformance #30: an 8,000-character x-zipline-p-identifier is a 400, not a 500",
  async (app) => {
    const a = await actor(app, "USER");
    const file = bytes(2500);
    // As a user, and anonymously (into a folder, the one way an anonymous chunk gets this far).
    for (const who of [a.headers, { "x-service-folder": "drop" }]) {
      const res = await chunk(app, file, 1000, 1999, {
        ...who,
        "x-zipline-p-identifier": "a".repeat(8000),
      });
      assert.deepEqual(res.body, tooLong("x-zipline-p-identifier", 100));
    }
    // A first chunk with it too, and the status route's own bound.
    const first = await chunk(app, file, 0, 999, {
      ...a.headers,
      "x-service-p-identifier": "a".repeat(101),
    });
    assert.deepEqual(first.body, tooLong("x-service-p-identifier", 100));
    const status = await app.json("GET", `/api/upload/partial/${"a".repeat(8000)}`);
    assert.equal(status.status, 400);
    assert.equal(app.logger.lines.filter((l) => l.level === "error").length, 0);
    // An identifier within the bound that names no upload is the usual 400.
    const unknown = await chunk(app, file, 1000, 1999, {
      ...a.headers,
      "x-service-p-identifier": "a".repeat(100),
    });
    assert.deepEqual(unknown.body, {
      error: "Partial upload identifier is invalid",
      statusCode: 400,
    });
    assert.deepEqual(await app.services.store.chunks.listByUser(a.user.id), []);
  },
);

apiTest(
  "conformance #30: every option header is bounded, with a 400 naming it",
  async (app) => {
    const a = await actor(app, "USER");
    const names = [
      "deletes-at",
      "max-views",
      "password",
      "format",
      "filename",
      "original-name",
      "file-extension",
      "folder",
      "domain",
      "no-json",
      "image-compression-percent",
      "image-compression-type",
      "p-filename",
      "p-content-type",
      "p-content-length",
      "p-identifier",
      "p-lastchunk",
      "anything-else",
    ];
    const file = [{ name: "a.txt", content: "x" }];
    for (const name of names) {
      const limit = optionLimit(name);
      for (const prefix of ["x-service-", "x-zipline-"]) {
        const header = `${prefix}${name}`;
        const long = { ...a.headers, [header]: "1".repeat(limit + 1) };
        const plain = await uploadFiles(app, file, long);
        assert.deepEqual(plain.body, tooLong(header, limit), header);
        const chunked = await chunk(app, bytes(100), 0, 99, long);
        assert.deepEqual(chunked.body, tooLong(header, limit), `${header}, chunked`);
      }
    }
    // Nothing was stored, nor started.
    const files = await app.json("GET", "/api/user/files?page=1", undefined, a.headers);
    assert.equal(files.body.total, 0);
    assert.deepEqual(await app.services.store.chunks.listByUser(a.user.id), []);

    // At the bound, a value is read as before: a password of OPTION_MAX_LENGTH characters.
    const password = "p".repeat(OPTION_MAX_LENGTH);
    const kept = await uploadFiles(app, file, { ...a.headers, "x-zipline-password": password });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    const verified = await app.json(
      "POST",
      `/api/user/files/${kept.body.files[0].id}/password`,
      { password },
    );
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
  },
);
