/** Tags (`/api/user/tags`, `/api/users/:id/tags`) and the tags of files. */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { type Actor, actor } from "../helpers/users.ts";

/** Creates a tag through the API and returns its id. */
async function tag(app: TestApp, who: Actor, name: string, color = "#f80") {
  const res = await app.json("POST", "/api/user/tags", { name, color }, who.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

apiTest("tags: create, list, get, change, delete; names unique per user", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const created = await app.json("POST", "/api/user/tags", {
    name: " work ",
    color: "#FF8800",
  }, a.headers);
  assert.equal(created.status, 200);
  assert.equal(created.body.name, "work");
  assert.equal(created.body.color, "#FF8800");
  assert.deepEqual(created.body.files, []);
  const work = created.body.id;

  const twice = await app.json(
    "POST",
    "/api/user/tags",
    { name: "work", color: "#000" },
    a.headers,
  );
  assert.deepEqual(twice.body, { error: "Cannot create tag with the same name", statusCode: 400 });
  const theirs = await tag(app, b, "work");
  const badColor = await app.json("POST", "/api/user/tags", { name: "x", color: "red" }, a.headers);
  assert.equal(badColor.status, 400);
  assert.equal(badColor.body.issues[0].path.join("."), "color");

  app.clock.advance(1000);
  const home = await tag(app, a, "home");
  const list = await app.json("GET", "/api/user/tags", undefined, a.headers);
  assert.deepEqual(list.body.map((t: { name: string }) => t.name), ["work", "home"]);
  assert.equal(
    (await app.json("GET", `/api/user/tags/${work}`, undefined, a.headers)).body.id,
    work,
  );
  const hidden = await app.json("GET", `/api/user/tags/${theirs}`, undefined, a.headers);
  assert.deepEqual(hidden.body, { error: "Not Found", statusCode: 404 });

  const taken = await app.json("PATCH", `/api/user/tags/${home}`, { name: "work" }, a.headers);
  assert.deepEqual(taken.body, { error: "Tag name already exists", statusCode: 400 });
  const renamed = await app.json("PATCH", `/api/user/tags/${home}`, {
    name: "house",
    color: "#123456",
  }, a.headers);
  assert.equal(renamed.body.name, "house");
  assert.equal(renamed.body.color, "#123456");
  const foreign = await app.json("PATCH", `/api/user/tags/${theirs}`, { name: "y" }, a.headers);
  assert.equal(foreign.status, 404);

  const removed = await app.json("DELETE", `/api/user/tags/${home}`, undefined, a.headers);
  assert.deepEqual(removed.body, { success: true });
  const after = await app.json("GET", "/api/user/tags", undefined, a.headers);
  assert.deepEqual(after.body.map((t: { id: string }) => t.id), [work]);
  const again = await app.json(
    "POST",
    "/api/user/tags",
    { name: "house", color: "#000" },
    a.headers,
  );
  assert.equal(again.status, 200);
  assert.equal(
    (await app.json("DELETE", `/api/user/tags/${theirs}`, undefined, a.headers)).status,
    404,
  );
  assert.equal(
    (await app.json("GET", `/api/user/tags/${theirs}`, undefined, b.headers)).status,
    200,
  );
});

apiTest("tags: a file's tags, the tags search, and unlinking", async (app) => {
  const a = await actor(app, "USER");
  const b = await actor(app, "USER");
  const work = await tag(app, a, "work");
  const urgent = await tag(app, a, "urgent");
  const theirs = await tag(app, b, "work");
  const [f1, f2, f3] = [
    await uploadOne(app, a.headers),
    await uploadOne(app, a.headers),
    await uploadOne(app, a.headers),
  ];
  const setTags = (id: string, tags: string[]) =>
    app.json("PATCH", `/api/user/files/${id}`, { tags }, a.headers);

  const both = await setTags(f1.id, [work, urgent]);
  assert.equal(both.status, 200);
  assert.deepEqual(both.body.tags.map((t: { name: string }) => t.name).sort(), ["urgent", "work"]);
  assert.deepEqual(Object.keys(both.body.tags[0]).sort(), [
    "color",
    "createdAt",
    "id",
    "name",
    "updatedAt",
  ]);
  await setTags(f2.id, [work]);
  const refused = await setTags(f3.id, [theirs]);
  assert.deepEqual(refused.body, { error: "Invalid tag specified", statusCode: 400 });
  const got = await app.json("GET", `/api/user/files/${f3.id}`, undefined, a.headers);
  assert.deepEqual(got.body.tags, []);

  const tagged = await app.json("GET", `/api/user/tags/${work}`, undefined, a.headers);
  assert.deepEqual(
    tagged.body.files.map((f: { id: string }) => f.id).sort(),
    [f1.id, f2.id].sort(),
  );

  const search = (query: string) =>
    app.json(
      "GET",
      `/api/user/files?page=1&searchField=tags&searchQuery=${query}`,
      undefined,
      a.headers,
    );
  const all = await search(`${work},${urgent}`);
  assert.deepEqual(all.body.page.map((f: { id: string }) => f.id), [f1.id]);
  assert.deepEqual(all.body.search, { field: "tags", query: [work, urgent] });
  const one = await search(work);
  assert.deepEqual(one.body.page.map((f: { id: string }) => f.id).sort(), [f1.id, f2.id].sort());
  const list = await app.json("GET", "/api/user/files?page=1", undefined, a.headers);
  const listed = list.body.page.find((f: { id: string }) => f.id === f1.id);
  assert.equal(listed.tags.length, 2);
  const foreign = await search(theirs);
  assert.deepEqual(foreign.body, { error: "Invalid tag specified", statusCode: 400 });

  const replaced = await setTags(f1.id, [urgent]);
  assert.deepEqual(replaced.body.tags.map((t: { id: string }) => t.id), [urgent]);

  await app.json("DELETE", `/api/user/tags/${urgent}`, undefined, a.headers);
  const untagged = await app.json("GET", `/api/user/files/${f1.id}`, undefined, a.headers);
  assert.equal(untagged.status, 200);
  assert.deepEqual(untagged.body.tags, []);

  await app.json("DELETE", `/api/user/files/${f2.id}`, undefined, a.headers);
  const left = await app.json("GET", `/api/user/tags/${work}`, undefined, a.headers);
  assert.deepEqual(left.body.files, []);
});

apiTest("tags: an administrator lists a managed user's tags", async (app) => {
  const admin = await actor(app, "ADMIN");
  const a = await actor(app, "USER");
  const other = await actor(app, "ADMIN");
  await tag(app, a, "work");
  const listed = await app.json("GET", `/api/users/${a.user.id}/tags`, undefined, admin.headers);
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.body.map((t: { name: string }) => t.name), ["work"]);
  const peer = await app.json("GET", `/api/users/${other.user.id}/tags`, undefined, admin.headers);
  assert.deepEqual(peer.body, { error: "Not Found", statusCode: 404 });
  const user = await app.json("GET", `/api/users/${a.user.id}/tags`, undefined, a.headers);
  assert.equal(user.status, 403);
});
