/**
 * Upload requests (issue #34, part 3): a user's links that let anyone send
 * it files — made, listed, changed and closed through `/api/user/requests`;
 * uploads through `POST /api/upload` and `/api/upload/partial` with
 * `x-service-request` and no other credential, held to the request's limits
 * (atomically, races included) and the owner's quota, on both stores.
 */
import assert from "node:assert/strict";
import { apiTest, startTestApp, type TestApp } from "../helpers/app.ts";
import { importDoc } from "../helpers/transfer.ts";
import { bytes, chunk, sendAll } from "../helpers/chunks.ts";
import { type TestFile, uploadFiles } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";
import { eventually } from "../helpers/wait.ts";

/** Makes a request of `owner`'s with `body`; returns its view (asserting success). */
async function makeRequest(app: TestApp, owner: Actor, body: Record<string, unknown> = {}) {
  const res = await app.json(
    "POST",
    "/api/user/requests",
    { name: "Photos", ...body },
    owner.headers,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Uploads `files` through request `code` with `headers`. */
function send(app: TestApp, code: string, files: TestFile[], headers: Record<string, string> = {}) {
  return uploadFiles(app, files, { "x-service-request": code, ...headers });
}

const file = (name = "a.txt", content: string | Uint8Array = "hello", type = "text/plain") => ({
  name,
  content,
  type,
});

/** The owner's files as `GET /api/user/files` lists them. */
async function ownerFiles(app: TestApp, owner: Actor, folder?: string) {
  const query = `page=1&perpage=100${folder ? `&folder=${folder}` : ""}`;
  const res = await app.json("GET", `/api/user/files?${query}`, undefined, owner.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.page;
}

async function requestView(app: TestApp, owner: Actor, id: string) {
  const res = await app.json("GET", `/api/user/requests/${id}`, undefined, owner.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

apiTest(
  "requests: made with a new folder named after them, listed, changed and closed",
  async (app) => {
    const owner = await actor(app, "USER");
    const made = await makeRequest(app, owner, {
      name: "Wedding photos",
      message: "Send me your pictures",
      maxFiles: 20,
      maxBytes: 10_000_000,
      maxFileSize: 1_000_000,
      allowedTypes: ["image/*", ".PDF"],
    });
    assert.match(made.code, /^[A-Za-z0-9]{22}$/);
    assert.equal(made.url, `http://ferry.test/request/${made.code}`);
    assert.equal(made.password, false);
    assert.deepEqual(made.allowedTypes, ["image/*", ".pdf"]);
    assert.equal(made.files, 0);
    assert.equal(made.bytes, 0);
    assert.equal(made.expired, false);
    const folders = await app.json(
      "GET",
      "/api/user/folders?noincl=true",
      undefined,
      owner.headers,
    );
    const folder = folders.body.find((f: { id: string }) => f.id === made.folderId);
    assert.equal(folder.name, "Wedding photos");
    assert.equal(folder.public, false);
    assert.equal(folder.allowUploads, false);

    // A second request of the same name gets a folder of its own.
    app.clock.advance(1000);
    const second = await makeRequest(app, owner, { name: "Wedding photos" });
    assert.notEqual(second.folderId, made.folderId);

    const list = await app.json("GET", "/api/user/requests", undefined, owner.headers);
    assert.deepEqual(list.body.map((r: { id: string }) => r.id), [made.id, second.id]);

    const changed = await app.json("PATCH", `/api/user/requests/${made.id}`, {
      name: "Wedding",
      maxFiles: null,
      password: "secret",
      expiresAt: new Date(app.clock.now() + 86_400_000).toISOString(),
    }, owner.headers);
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.name, "Wedding");
    assert.equal(changed.body.maxFiles, null);
    assert.equal(changed.body.maxBytes, 10_000_000);
    assert.equal(changed.body.password, true);
    assert.equal((await requestView(app, owner, made.id)).password, true);

    const closed = await app.json(
      "DELETE",
      `/api/user/requests/${made.id}`,
      undefined,
      owner.headers,
    );
    assert.equal(closed.status, 200);
    const gone = await app.json("GET", `/api/user/requests/${made.id}`, undefined, owner.headers);
    assert.equal(gone.status, 404);
    // Its folder stays.
    const after = await app.json(
      "GET",
      `/api/user/folders/${made.folderId}`,
      undefined,
      owner.headers,
    );
    assert.equal(after.status, 200);
  },
);

apiTest(
  "requests: another's request or folder is 404, a past expiry 400, bad types 400",
  async (app) => {
    const owner = await actor(app, "USER");
    const other = await actor(app, "USER");
    const made = await makeRequest(app, owner);
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const res = await app.json(
        method,
        `/api/user/requests/${made.id}`,
        method === "PATCH" ? {} : undefined,
        other.headers,
      );
      assert.equal(res.status, 404, method);
    }
    const othersFolder = await app.json("POST", "/api/user/folders", { name: "x" }, other.headers);
    const into = await app.json("POST", "/api/user/requests", {
      name: "r",
      folderId: othersFolder.body.id,
    }, owner.headers);
    assert.deepEqual(into.body, { error: "Folder not found", statusCode: 404 });
    const past = await app.json("POST", "/api/user/requests", {
      name: "r",
      expiresAt: new Date(app.clock.now() - 1000).toISOString(),
    }, owner.headers);
    assert.equal(past.status, 400);
    assert.equal(past.body.error, "expiresAt must be in the future");
    const badType = await app.json("POST", "/api/user/requests", {
      name: "r",
      allowedTypes: ["png"],
    }, owner.headers);
    assert.equal(badType.status, 400);
    const noName = await app.json("POST", "/api/user/requests", { name: " " }, owner.headers);
    assert.equal(noName.status, 400);
  },
);

apiTest(
  "requests: an API key needs files:write to make one and files:read to list them",
  async (app) => {
    const owner = await actor(app, "USER");
    const key = async (scopes: string[]) => {
      const res = await app.json("POST", "/api/user/keys", { name: "k", scopes }, owner.headers);
      return { authorization: res.body.key as string };
    };
    const reader = await key(["files:read"]);
    const writer = await key(["files:write"]);
    const refused = await app.json("POST", "/api/user/requests", { name: "r" }, reader);
    assert.equal(refused.status, 403);
    assert.match(refused.body.error, /files:write/);
    assert.equal((await app.json("POST", "/api/user/requests", { name: "r" }, writer)).status, 200);
    assert.equal((await app.json("GET", "/api/user/requests", undefined, reader)).status, 200);
    assert.equal((await app.json("GET", "/api/user/requests", undefined, writer)).status, 403);
  },
);

apiTest(
  "request uploads: anonymous, into the request's folder, the owner's, with the uploader's name",
  async (app) => {
    const owner = await actor(app, "USER");
    const stranger = await actor(app, "USER");
    const made = await makeRequest(app, owner);
    const res = await send(app, made.code, [file("notes.txt", "hello there")], {
      "x-service-request-uploader": encodeURIComponent("Zoë Ünicode"),
      // The request decides: these are ignored.
      "x-service-format": "name",
      "x-service-password": "sneaky",
      "x-service-max-views": "1",
      "x-service-folder": "elsewhere",
      "x-service-image-compression-percent": "50",
      // Credentials are ignored too: the file is the request owner's.
      ...stranger.headers,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.files.length, 1);
    const files = await ownerFiles(app, owner, made.folderId);
    assert.equal(files.length, 1);
    assert.equal(files[0].uploaderName, "Zoë Ünicode");
    assert.equal(files[0].originalName, "notes.txt");
    assert.equal(files[0].password, false);
    assert.equal(files[0].maxViews, null);
    assert.equal(files[0].anonymous, true);
    assert.notEqual(files[0].name, "notes.txt");
    assert.equal((await ownerFiles(app, stranger)).length, 0);
    const view = await requestView(app, owner, made.id);
    assert.equal(view.files, 1);
    assert.equal(view.bytes, 11);
    assert.equal(files[0].private, true, "the request's files are private");
    const raw = await app.request(`/raw/${files[0].name}`);
    assert.equal(raw.status, 404, "the uploader cannot hand its file's link out");
    await raw.body?.cancel();
    const own = await app.request(`/api/user/files/${files[0].id}/raw`, {
      headers: owner.headers,
    });
    assert.equal(await own.text(), "hello there");
  },
);

apiTest("request uploads: 410 once closed, expired, unknown, or its owner deleted", async (app) => {
  const admin = await actor(app, "ADMIN");
  const owner = await actor(app, "USER");
  const closedBody = { error: "This upload request does not exist or was closed", statusCode: 410 };
  assert.deepEqual((await send(app, "nope", [file()])).body, closedBody);

  const deleted = await makeRequest(app, owner);
  assert.equal((await send(app, deleted.code, [file()])).status, 200);
  await app.json("DELETE", `/api/user/requests/${deleted.id}`, undefined, owner.headers);
  assert.deepEqual((await send(app, deleted.code, [file()])).body, closedBody);
  assert.equal((await app.json("GET", `/api/requests/${deleted.code}`)).status, 410);
  // What it received stays the owner's.
  assert.equal((await ownerFiles(app, owner, deleted.folderId)).length, 1);

  const expiring = await makeRequest(app, owner, {
    expiresAt: new Date(app.clock.now() + 60_000).toISOString(),
  });
  assert.equal((await send(app, expiring.code, [file()])).status, 200);
  app.clock.advance(60_001);
  assert.deepEqual((await send(app, expiring.code, [file()])).body, {
    error: "This upload request has expired",
    statusCode: 410,
  });
  assert.equal((await requestView(app, owner, expiring.id)).expired, true);

  const orphan = await makeRequest(app, owner);
  const removed = await app.json(
    "DELETE",
    `/api/users/${owner.user.id}`,
    { delete: false },
    admin.headers,
  );
  assert.equal(removed.status, 200, JSON.stringify(removed.body));
  assert.deepEqual((await send(app, orphan.code, [file()])).body, closedBody);
  assert.equal(await app.services.store.uploadRequests.get(orphan.id), null);
});

apiTest(
  "request uploads: 413 past the largest file, the bytes or the files; 415 for a type",
  async (app) => {
    const owner = await actor(app, "USER");
    const sized = await makeRequest(app, owner, { maxFileSize: 100, maxBytes: 150, maxFiles: 3 });
    const big = await send(app, sized.code, [file("big.txt", "x".repeat(101))]);
    assert.deepEqual(big.body, {
      error: "file[0]: File size is too large. Maximum file size is 100 bytes",
      statusCode: 413,
    });
    assert.equal((await send(app, sized.code, [file("a.txt", "x".repeat(100))])).status, 200);
    const over = await send(app, sized.code, [file("b.txt", "x".repeat(51))]);
    assert.deepEqual(over.body, {
      error: "This upload request has room for 50 more bytes only",
      statusCode: 413,
    });
    // Streamed, with no length to go by: held to the room left as it streams.
    const streamed = await uploadFiles(app, [file("c.txt", "x".repeat(51))], {
      "x-service-request": sized.code,
    }, { streamed: true });
    assert.equal(streamed.status, 413, JSON.stringify(streamed.body));
    assert.equal((await send(app, sized.code, [file("d.txt", "x".repeat(50))])).status, 200);
    let view = await requestView(app, owner, sized.id);
    assert.deepEqual([view.files, view.bytes], [2, 150]);
    const full = await send(app, sized.code, [file("e.txt", "")]);
    assert.equal(full.status, 413);

    const counted = await makeRequest(app, owner, { maxFiles: 2 });
    const three = await send(app, counted.code, [file("1.txt"), file("2.txt"), file("3.txt")]);
    assert.deepEqual(three.body, {
      error: "This upload request accepts no more files (2 at most)",
      statusCode: 413,
    });
    // All or nothing: the two that fitted were removed with the request's refusal.
    view = await requestView(app, owner, counted.id);
    assert.deepEqual([view.files, view.bytes], [0, 0]);
    assert.equal((await ownerFiles(app, owner, counted.folderId)).length, 0);

    const typed = await makeRequest(app, owner, { allowedTypes: ["image/*", ".pdf"] });
    const text = await send(app, typed.code, [file("a.txt", "hi", "text/plain")]);
    assert.equal(text.status, 415);
    assert.match(text.body.error, /^file\[0\]: File type text\/plain is not accepted/);
    // The name must match too: an HTML file sent as an image is refused.
    const disguised = await send(app, typed.code, [file("x.html", "<script>", "image/png")]);
    assert.equal(disguised.status, 415);
    assert.equal((await send(app, typed.code, [file("a.png", "png", "image/png")])).status, 200);
    assert.equal(
      (await send(app, typed.code, [file("doc.pdf", "%PDF", "application/pdf")])).status,
      200,
    );
    view = await requestView(app, owner, typed.id);
    assert.equal(view.files, 2);
  },
);

apiTest("request uploads: the owner's quota applies", async (app) => {
  const owner = await actor(app, "USER");
  await app.services.store.users.update(owner.user.id, {
    quota: { id: "q", filesQuota: "BY_BYTES", maxBytes: "1kb", maxFiles: null, maxUrls: null },
  }, new Date());
  const made = await makeRequest(app, owner);
  assert.equal((await send(app, made.code, [file("a.bin", bytes(800))])).status, 200);
  const over = await send(app, made.code, [file("b.bin", bytes(800))]);
  assert.equal(over.status, 403, JSON.stringify(over.body));
  assert.match(over.body.error, /owner's quota/);
  const view = await requestView(app, owner, made.id);
  assert.deepEqual([view.files, view.bytes], [1, 800]);
});

apiTest(
  "request uploads: a password is asked (401), checked (403), and opens the message",
  async (app) => {
    const owner = await actor(app, "USER");
    const made = await makeRequest(app, owner, { password: "open sesame", message: "Hi there" });
    const described = await app.json("GET", `/api/requests/${made.code}`);
    assert.equal(described.status, 200);
    assert.deepEqual(described.body, {
      name: "Photos",
      owner: owner.user.username,
      message: null,
      password: true,
      maxFiles: null,
      maxBytes: null,
      maxFileSize: null,
      allowedTypes: [],
      filesLeft: null,
      bytesLeft: null,
      expiresAt: null,
    });
    const none = await send(app, made.code, [file()]);
    assert.deepEqual(none.body, {
      error: "This upload request needs its password",
      statusCode: 401,
    });
    const wrong = await send(app, made.code, [file()], { "x-service-request-password": "nope" });
    assert.deepEqual(wrong.body, { error: "Incorrect password", statusCode: 403 });
    const badUnlock = await app.json("POST", `/api/requests/${made.code}/password`, {
      password: "x",
    });
    assert.equal(badUnlock.status, 403);
    const unlocked = await app.json("POST", `/api/requests/${made.code}/password`, {
      password: "open sesame",
    });
    assert.equal(unlocked.status, 200);
    assert.equal(unlocked.body.message, "Hi there");
    const right = await send(app, made.code, [file()], {
      "x-service-request-password": "open sesame",
    });
    assert.equal(right.status, 200, JSON.stringify(right.body));
    const attempts = app.logger.lines.filter((e) => e.message === "request password attempt");
    assert.deepEqual(attempts.map((e) => e.fields?.success), [false, false, true]);
  },
);

for (
  const [label, limits, size] of [
    ["maxFiles", { maxFiles: 10 }, 100],
    // Each upload's body declares a little more than its file; ten of them fit, an eleventh does not.
    ["maxBytes", { maxBytes: 105_000 }, 10_000],
  ] as const
) {
  apiTest(
    `request uploads race: 12 at once against ${label} leave exactly 10 files`,
    async (app) => {
      const owner = await actor(app, "USER");
      const made = await makeRequest(app, owner, limits);
      const replies = await Promise.all(
        Array.from(
          { length: 12 },
          (_, i) => send(app, made.code, [file(`f${i}.bin`, bytes(size))]),
        ),
      );
      const statuses = replies.map((r) => r.status).sort();
      assert.deepEqual(
        statuses,
        [...Array(10).fill(200), 413, 413],
        JSON.stringify(replies.map((r) => r.body)),
      );
      assert.equal((await ownerFiles(app, owner, made.folderId)).length, 10);
      const view = await requestView(app, owner, made.id);
      assert.deepEqual([view.files, view.bytes], [10, 10 * size]);
      assert.deepEqual(await app.services.store.files.usage(owner.user.id), {
        files: 10,
        bytes: 10 * size,
      });
    },
  );
}

apiTest(
  "request uploads: chunked through a request, resumable, held to its limits",
  async (app) => {
    const owner = await actor(app, "USER");
    const made = await makeRequest(app, owner, { maxBytes: 5000, allowedTypes: ["video/*"] });
    const headers = {
      "x-service-request": made.code,
      "x-service-request-uploader": "Sam",
    };
    const movie = bytes(2500);
    const first = await chunk(app, movie, 0, 999, headers);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    // Reserved from the first chunk.
    assert.deepEqual(
      [
        (await requestView(app, owner, made.id)).files,
        (await requestView(app, owner, made.id)).bytes,
      ],
      [1, 2500],
    );
    const id = { "x-service-p-identifier": first.body.partialIdentifier };
    // Without the request, its chunks need credentials, and are not the request's to continue.
    const bare = await chunk(app, movie, 1000, 1999, id);
    assert.equal(bare.status, 401);
    const stranger = await actor(app, "USER");
    const another = await chunk(app, movie, 1000, 1999, { ...id, ...stranger.headers });
    assert.deepEqual(another.body, {
      error: "Partial upload identifier is invalid",
      statusCode: 400,
    });
    const status = await app.json("GET", `/api/upload/partial/${first.body.partialIdentifier}`);
    assert.deepEqual(status.body.received, [[0, 999]]);
    await chunk(app, movie, 1000, 1999, { ...headers, ...id });
    const last = await chunk(app, movie, 2000, 2499, { ...headers, ...id });
    assert.equal(last.status, 200, JSON.stringify(last.body));
    assert.equal(last.body.files.length, 1);
    const files = await ownerFiles(app, owner, made.folderId);
    assert.equal(files.length, 1);
    assert.equal(files[0].size, 2500);
    assert.equal(files[0].uploaderName, "Sam");
    const view = await requestView(app, owner, made.id);
    assert.deepEqual([view.files, view.bytes], [1, 2500]);

    // Past the bytes left, refused at the first chunk, with nothing reserved.
    const tooBig = await chunk(app, bytes(2501), 0, 999, headers);
    assert.deepEqual(tooBig.body, {
      error: "This upload request has room for 2500 more bytes only",
      statusCode: 413,
    });
    const wrongType = await chunk(app, movie, 0, 999, {
      ...headers,
      "x-service-p-content-type": "text/html",
      "x-zipline-p-filename": "page.html",
    });
    assert.equal(wrongType.status, 415);
    const after = await requestView(app, owner, made.id);
    assert.deepEqual([after.files, after.bytes], [1, 2500]);
  },
);

apiTest("request uploads: an abandoned chunked upload gives its reservation back", async (app) => {
  const owner = await actor(app, "USER");
  const made = await makeRequest(app, owner, { maxFiles: 1 });
  const headers = { "x-service-request": made.code };
  const first = await chunk(app, bytes(2000), 0, 999, headers);
  assert.equal(first.status, 200);
  assert.equal((await send(app, made.code, [file()])).status, 413);
  const upload = await app.services.store.chunks.get(first.body.partialIdentifier);
  const { abandonUpload } = await import("../../core/files/chunked.ts");
  await abandonUpload(app.services, upload!);
  const view = await requestView(app, owner, made.id);
  assert.deepEqual([view.files, view.bytes], [0, 0]);
  assert.equal((await send(app, made.code, [file()])).status, 200);
});

apiTest("request uploads on S3: whole and chunked land in the request's folder", async (app) => {
  const owner = await actor(app, "USER");
  const made = await makeRequest(app, owner);
  assert.equal((await send(app, made.code, [file("a.txt", "on s3")])).status, 200);
  const replies = await sendAll(app, bytes(6 * 1024 * 1024), 5 * 1024 * 1024, {
    "x-service-request": made.code,
  });
  assert.equal(replies.at(-1)!.status, 200, JSON.stringify(replies.at(-1)!.body));
  const files = await ownerFiles(app, owner, made.folderId);
  assert.equal(files.length, 2);
  const small = files.find((f: { size: number }) => f.size === 5);
  const raw = await app.request(`/api/user/files/${small.id}/raw`, { headers: owner.headers });
  assert.equal(await raw.text(), "on s3");
}, { datasource: "s3" });

apiTest(
  "request uploads: the request-upload webhook tells the owner (HTTP and chat)",
  async (app) => {
    await app.services.store.settings.update({
      httpWebhookOnRequestUpload: "https://hooks.example.com/request",
      chatOnRequestUploadWebhookUrl: "https://chat.example.com/hook",
      chatOnRequestUploadContent: "{request.uploader} sent {file.name} to {request.name}",
    });
    await app.services.settings.reload();
    const owner = await actor(app, "USER");
    const made = await makeRequest(app, owner, { name: "Scans" });
    const res = await send(app, made.code, [file("scan.txt", "abc")], {
      "x-service-request-uploader": "Alex",
    });
    assert.equal(res.status, 200);
    const name = res.body.files[0].name;
    let deliveries: Awaited<ReturnType<typeof app.services.store.webhooks.list>> = [];
    await eventually("the request-upload deliveries", async () => {
      deliveries = (await app.services.store.webhooks.list(10)).filter((d) =>
        d.event === "request-upload"
      );
      return deliveries.length === 2;
    });
    const http = deliveries.find((d) => d.kind === "http")!;
    const chat = deliveries.find((d) => d.kind === "chat")!;
    assert.equal(http.url, "https://hooks.example.com/request");
    const body = JSON.parse(http.body);
    assert.equal(body.type, "request-upload");
    assert.equal(body.data.user.id, owner.user.id);
    assert.equal(body.data.file.name, name);
    assert.deepEqual(body.data.request, { id: made.id, name: "Scans", files: 1, bytes: 3 });
    assert.equal(body.data.uploader, "Alex");
    assert.ok(!http.body.includes(made.code), "the request's code is not sent");
    assert.equal(JSON.parse(chat.body).content, `Alex sent ${name} to Scans`);
  },
);

apiTest("request uploads are rate limited per client address", async (app) => {
  await app.services.store.settings.update({ ratelimitMax: 2, coreTrustProxy: true });
  await app.services.settings.reload();
  const owner = await actor(app, "USER");
  const made = await makeRequest(app, owner);
  app.clock.set(Math.ceil(app.clock.now() / 60_000) * 60_000);
  const from = (ip: string) => ({ "x-forwarded-for": `203.0.113.7, ${ip}` });
  assert.equal((await send(app, made.code, [file()], from("198.51.100.1"))).status, 200);
  assert.equal((await send(app, made.code, [file()], from("198.51.100.1"))).status, 200);
  assert.equal((await send(app, made.code, [file()], from("198.51.100.1"))).status, 429);
  assert.equal((await send(app, made.code, [file()], from("198.51.100.2"))).status, 200);
}, { rateLimits: true });

apiTest("the v4 export carries requests, and an import keeps their links working", async (app) => {
  const root = await actor(app, "SUPERADMIN", "root");
  const bob = await actor(app, "USER", "bob");
  const made = await makeRequest(app, bob, { name: "Drop", maxFiles: 3, password: "pw" });
  const sent = await send(app, made.code, [file("a.txt", "abc")], {
    "x-service-request-password": "pw",
    "x-service-request-uploader": "Ann",
  });
  assert.equal(sent.status, 200);
  const exported = await app.request("/api/server/export", {
    method: "POST",
    headers: root.headers,
  });
  assert.equal(exported.status, 200);
  const text = await exported.text();
  const doc = JSON.parse(text);
  assert.equal(doc.data.ferryUploadRequests.length, 1);
  const record = doc.data.ferryUploadRequests[0];
  assert.equal(record.code, made.code);
  assert.equal(record.files, 1);
  assert.match(record.password, /^\$argon2/);
  assert.equal(
    doc.data.files.find((f: { uploaderName?: string }) => f.uploaderName)?.uploaderName,
    "Ann",
  );

  const target = await startTestApp(app.kind);
  try {
    target.clock.set(app.clock.now());
    const admin = await actor(target, "SUPERADMIN", "admin");
    const first = await importDoc(target, "v4", text, admin.headers);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.imported.uploadRequests, 1);
    const imported = await target.services.store.uploadRequests.getByCode(made.code);
    assert.equal(imported!.files, 1);
    assert.equal(imported!.maxFiles, 3);
    const owner = await target.services.store.users.get(imported!.userId);
    assert.equal(owner!.username, "bob");
    const files = [];
    for await (const f of target.services.store.files.iterate()) files.push(f);
    assert.equal(files.find((f) => f.uploaderName)?.uploaderName, "Ann");
    // The link works on the new instance, password and all.
    const wrong = await uploadFiles(target, [file()], {
      "x-service-request": made.code,
      "x-service-request-password": "nope",
    });
    assert.equal(wrong.status, 403);
    const again = await importDoc(target, "v4", text, admin.headers);
    assert.equal(again.body.imported.uploadRequests, 0, "the same request is not imported twice");
  } finally {
    await target.close();
  }
});

apiTest(
  "the request's page: who asks, the message, the upload box; 410 once closed",
  async (app) => {
    const owner = await actor(app, "USER", "carol");
    const made = await makeRequest(app, owner, {
      name: "Tax papers",
      message: "Please send <b>the</b> scans",
      maxFiles: 5,
    });
    const res = await app.request(`/request/${made.code}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-security-policy") ?? "", /script-src 'nonce-/);
    const html = await res.text();
    assert.ok(html.includes("<strong>carol</strong> asks you for files"));
    assert.ok(html.includes("Tax papers"));
    assert.ok(html.includes("Please send &lt;b&gt;the&lt;/b&gt; scans"), "the message is escaped");
    assert.ok(html.includes("5 more files"));
    assert.match(html, /data-page="request"/);
    assert.ok(!html.includes(owner.user.id), "the owner's id is not shown");

    const locked = await makeRequest(app, owner, { message: "secret words", password: "pw" });
    const lockedHtml = await (await app.request(`/request/${locked.code}`)).text();
    assert.ok(!lockedHtml.includes("secret words"), "the message waits for the password");

    await app.json("DELETE", `/api/user/requests/${made.id}`, undefined, owner.headers);
    const closed = await app.request(`/request/${made.code}`);
    assert.equal(closed.status, 410);
    assert.ok((await closed.text()).includes("This upload request is closed"));
    assert.equal((await app.request("/request/unknown-code")).status, 410);
  },
);

apiTest(
  "request uploads: a chunked upload's first chunk is counted, its later ones are not",
  async (app) => {
    await app.services.store.settings.update({ ratelimitMax: 2, coreTrustProxy: true });
    await app.services.settings.reload();
    const owner = await actor(app, "USER");
    const made = await makeRequest(app, owner);
    app.clock.set(Math.ceil(app.clock.now() / 60_000) * 60_000);
    const headers = {
      "x-service-request": made.code,
      "x-forwarded-for": "203.0.113.7, 198.51.100.9",
    };
    const movie = bytes(5000);
    const first = await chunk(app, movie, 0, 999, headers);
    assert.equal(first.status, 200);
    const id = { "x-service-p-identifier": first.body.partialIdentifier };
    for (let start = 1000; start < 5000; start += 1000) {
      const reply = await chunk(app, movie, start, start + 999, { ...headers, ...id });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
    }
    // Another request's code does not open the bypass.
    const other = await makeRequest(app, owner, { name: "Other" });
    const second = await chunk(app, movie, 0, 999, headers);
    assert.equal(second.status, 200);
    const stranger = { ...headers, "x-service-request": other.code };
    const third = await chunk(app, movie, 1000, 1999, {
      ...stranger,
      "x-service-p-identifier": second.body.partialIdentifier,
    });
    assert.equal(third.status, 429);
  },
  { rateLimits: true },
);
