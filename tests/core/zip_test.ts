/** The streaming zip writer, read back by Python's zipfile and Info-ZIP's unzip. */
import assert from "node:assert/strict";
import { type ZipEntry, zipSegment, zipStream } from "../../core/zip.ts";
import { readZip, sha256 } from "../helpers/zip.ts";

const at = new Date("2026-11-22T10:00:00Z");

/** A file entry of `bytes`, sent in chunks of at most 64 KiB; counts its openings in `opened`. */
function file(path: string, bytes: Uint8Array, opened: string[] = []): ZipEntry {
  return {
    kind: "file",
    path,
    modified: at,
    size: bytes.length,
    open() {
      opened.push(path);
      const chunks = [];
      for (let i = 0; i < bytes.length; i += 65536) chunks.push(bytes.slice(i, i + 65536));
      return Promise.resolve(ReadableStream.from(chunks));
    },
  };
}

const random = (n: number) => {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return bytes;
};

const text = (s: string) => new TextEncoder().encode(s);

for (const forceZip64 of [false, true]) {
  Deno.test(`zip: files, directories, UTF-8 names and empty files${forceZip64 ? " (ZIP64)" : ""}`, async () => {
    const big = random(1_000_000);
    const entries: ZipEntry[] = [
      file("hello.txt", text("hello, world\n")),
      file("empty.bin", new Uint8Array()),
      { kind: "directory", path: "photos", modified: at },
      file("photos/big.bin", big),
      { kind: "directory", path: "photos/été 🌞", modified: at },
      file("photos/été 🌞/naïve.txt", text("ünïcödé")),
    ];
    const listing = await readZip(zipStream(entries, { forceZip64 }));
    assert.deepEqual(listing, {
      "hello.txt": sha256("hello, world\n"),
      "empty.bin": sha256(""),
      "photos/": "dir",
      "photos/big.bin": sha256(big),
      "photos/été 🌞/": "dir",
      "photos/été 🌞/naïve.txt": sha256("ünïcödé"),
    });
  });
}

Deno.test("zip: an empty archive is a valid one", async () => {
  const bytes = new Uint8Array(await new Response(zipStream([])).arrayBuffer());
  assert.equal(bytes.length, 22, "the end record alone");
  assert.deepEqual(await readZip(bytes), {});
});

Deno.test("zip: more than 65535 entries need the ZIP64 end record", async () => {
  const entries = function* (): Generator<ZipEntry> {
    for (let i = 0; i < 70_000; i++) yield { kind: "directory", path: `d${i}`, modified: at };
  };
  const listing = await readZip(zipStream(entries()));
  assert.equal(Object.keys(listing).length, 70_000);
  assert.equal(listing["d69999/"], "dir");
});

Deno.test("zip: a file's bytes are opened only when the reader reaches them", async () => {
  const opened: string[] = [];
  const entries = [1, 2, 3].map((n) => file(`f${n}.bin`, random(200_000), opened));
  const reader = zipStream(entries).getReader();
  let read = 0;
  while (read < 100_000) read += (await reader.read()).value!.length;
  assert.deepEqual(opened, ["f1.bin"], "one file at a time");
  await reader.cancel();
});

Deno.test("zip: an entry whose bytes are gone is left out", async () => {
  const missing: ZipEntry = {
    kind: "file",
    path: "gone.txt",
    modified: at,
    size: 3,
    open: () => Promise.resolve(null),
  };
  const listing = await readZip(zipStream([missing, file("here.txt", text("yes"))]));
  assert.deepEqual(listing, { "here.txt": sha256("yes") });
});

Deno.test("zip: path segments cannot climb out or nest", () => {
  assert.deepEqual(
    ["a/b", "..", ".", "", "c\\d", "tab\there", "ok name.txt"].map(zipSegment),
    ["a_b", "_", "_", "_", "c_d", "tab_here", "ok name.txt"],
  );
});
