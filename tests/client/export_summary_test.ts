/**
 * What the import page reads of an export before sending it: the streaming
 * JSON outline reader (members counted and wanted values kept across chunk
 * boundaries, long strings and escapes skipped, non-JSON refused), and the
 * summary of the v3 and v4 fixtures (format, origin, counts, file sizes and
 * users, whatever the chunk size), and of a large generated export read in
 * small chunks without holding it.
 */
import assert from "node:assert/strict";
import { type JsonPath, JsonScanError, JsonScanner, scanStream } from "../../client/json_scan.ts";
import { summarizeExport } from "../../client/export_summary.ts";

const V3 = new URL("../fixtures/zipline-v3-export.sample.json", import.meta.url);
const V4 = new URL("../fixtures/zipline-v4-export.sample.json", import.meta.url);

/** `bytes` as a stream of chunks of `size` bytes. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/**
 * What a scan of `text` in chunks of `size` reports: wanted values and closed
 * containers, following every container to the fourth level.
 */
async function scan(text: string, size: number, wanted: (path: JsonPath) => boolean) {
  const values: [string, unknown][] = [];
  const closed: [string, number][] = [];
  await scanStream(chunked(new TextEncoder().encode(text), size), {
    follow: (parent) => parent.length < 3,
    wants: (parent, key) => wanted([...parent, key]),
    value: (path, value) => values.push([path.join("/"), value]),
    closed: (path, members) => closed.push([path.join("/"), members]),
  });
  return { values, closed };
}

Deno.test("client json scan: counts members and keeps wanted values across any chunking", async () => {
  const text = JSON.stringify(
    {
      'ver"sions': { export: "4" },
      data: {
        users: [{ id: "a", name: 'é \\ " ok', n: -1.5e3, t: true }, {
          id: "b",
          avatar: "x".repeat(500),
        }],
        empty: {},
        list: [[], [1, [2, [3]]], null],
      },
      tail: "ünïcode ✓",
    },
    null,
    1,
  );
  const wants = (path: JsonPath) =>
    (path.length === 4 && path[1] === "users") || path[0] === "tail" ||
    path[0] === 'ver"sions';
  for (const size of [1, 2, 3, 7, 64, text.length]) {
    const { values, closed } = await scan(text, size, wants);
    assert.deepEqual(values, [
      ['ver"sions', { export: "4" }],
      ["data/users/0/id", "a"],
      ["data/users/0/name", 'é \\ " ok'],
      ["data/users/0/n", -1500],
      ["data/users/0/t", true],
      ["data/users/1/id", "b"],
      ["data/users/1/avatar", "x".repeat(500)],
      ["tail", "ünïcode ✓"],
    ], `chunks of ${size}`);
    assert.deepEqual(closed, [
      ['ver"sions', 1],
      ["data/users/0", 4],
      ["data/users/1", 2],
      ["data/users", 2],
      ["data/empty", 0],
      ["data/list/0", 0],
      ["data/list/1/1", 2],
      ["data/list/1", 2],
      ["data/list", 3],
      ["data", 3],
      ["", 3],
    ], `chunks of ${size}`);
  }
});

Deno.test("client json scan: what is not JSON, or ends early, is refused", async () => {
  for (
    const text of ["<html>", '{"a": 1', '{"a": [1, 2}', "{1: 2}", '{"a": 1} {"b": 2}', '{"a":1,}']
  ) {
    await assert.rejects(() => scan(text, 4, () => false), JsonScanError, text);
  }
  const scanner = new JsonScanner({});
  scanner.push(new TextEncoder().encode(' [1, "two", {"three": 3}]\n'));
  scanner.end();
  assert.equal(scanner.done, true);
});

Deno.test("client export summary: the v4 fixture, in any chunk size", async () => {
  const bytes = await Deno.readFile(V4);
  const doc = JSON.parse(new TextDecoder().decode(bytes));
  for (const size of [5, 4096, bytes.length]) {
    const blob = { stream: () => chunked(bytes, size) } as unknown as Blob;
    const summary = await summarizeExport(blob);
    assert.equal(summary.format, "4");
    assert.equal(summary.zipline, "4.6.2");
    assert.equal(summary.exportedAt, doc.request.date);
    assert.equal(summary.exportedBy, "admin");
    assert.deepEqual(summary.counts, [
      { kind: "users", count: 4 },
      { kind: "OAuth links", count: 3 },
      { kind: "quotas", count: 2 },
      { kind: "passkeys", count: 1 },
      { kind: "folders", count: 5 },
      { kind: "files", count: 9 },
      { kind: "tags", count: 2 },
      { kind: "URLs", count: 4 },
      { kind: "invites", count: 2 },
      { kind: "thumbnails", count: 1 },
      { kind: "metrics", count: 3 },
    ]);
    assert.equal(
      summary.fileBytes,
      doc.data.files.reduce((n: number, f: { size: number }) => n + f.size, 0),
    );
    assert.deepEqual(
      summary.users,
      doc.data.users.map((u: { id: string; username: string; role: string }) => ({
        id: u.id,
        username: u.username,
        role: u.role,
      })),
    );
  }
});

Deno.test("client export summary: the v3 fixture; a JSON file that is no export", async () => {
  const v3 = await summarizeExport(new Blob([await Deno.readFile(V3)]));
  assert.equal(v3.format, "3");
  assert.equal(v3.zipline, "3.7.12");
  assert.equal(v3.exportedBy, "admin", "the v3 request names the exporter by id");
  assert.deepEqual(
    v3.counts.map((c) => `${c.kind} ${c.count}`),
    ["users 4", "folders 3", "files 8", "URLs 4", "invites 2", "thumbnails 1"],
  );
  assert.deepEqual(v3.users.map((u) => `${u.username} ${u.role}`), [
    "admin SUPERADMIN",
    "maria ADMIN",
    "kenji USER",
    "lena USER",
  ]);
  assert.equal(v3.users[0].id, "yyVcsZoVwMXvBjf9nhseYT0cqNOsdfLd");
  assert.ok(v3.fileBytes > 0);

  const other = await summarizeExport(new Blob(['{"hello": ["world"]}']));
  assert.deepEqual(other, {
    format: null,
    zipline: null,
    exportedAt: null,
    exportedBy: null,
    counts: [],
    fileBytes: 0,
    users: [],
  });
  await assert.rejects(() => summarizeExport(new Blob(["not json"])), JsonScanError);
});

Deno.test("client export summary: a large export is read in chunks and counted", async () => {
  const files = 60_000;
  const parts: string[] = [
    '{"versions":{"zipline":"4.6.2","node":"v22","export":"4"},"request":{"user":"u0:owner",' +
    '"date":"2026-01-01T00:00:00.000Z","os":{},"env":{}},"data":{"settings":{},' +
    '"users":[{"id":"u0","username":"owner","role":"SUPERADMIN","avatar":"data:image/png;base64,' +
    "A".repeat(1_000_000) + '"}],"files":[',
  ];
  for (let i = 0; i < files; i++) {
    parts.push(
      `${i ? "," : ""}{"id":"f${i}","name":"file-${i}.png","size":10,"type":"image/png",` +
        `"views":0,"favorite":false,"password":null,"userId":"u0","folderId":null}`,
    );
  }
  parts.push('],"urls":[],"metrics":[]}}');
  const blob = new Blob(parts);
  let reads = 0;
  const started = performance.now();
  const summary = await summarizeExport(blob, { progress: () => reads++ });
  const took = performance.now() - started;
  assert.equal(summary.counts.find((c) => c.kind === "files")?.count, files);
  assert.equal(summary.fileBytes, files * 10);
  assert.deepEqual(summary.users, [{ id: "u0", username: "owner", role: "SUPERADMIN" }]);
  assert.ok(reads > 1, `read in ${reads} chunks of a ${blob.size}-byte blob`);
  console.log(`${(blob.size / 1e6).toFixed(1)} MB summarised in ${took.toFixed(0)} ms`);
});
