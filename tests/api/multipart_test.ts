/**
 * The streaming multipart reader (routes/multipart.ts): the same parts
 * whatever sizes the body arrives in, delimiters split across chunks
 * included; fields skipped; malformed bodies refused with a 400.
 */
import assert from "node:assert/strict";
import { ApiError } from "../../core/errors.ts";
import { fileParts, multipartBoundary } from "../../routes/multipart.ts";

/** A FormData body as bytes, with its boundary. */
async function encode(form: FormData): Promise<{ bytes: Uint8Array; boundary: string }> {
  const req = new Request("http://x/", { method: "POST", body: form });
  const boundary = multipartBoundary(req.headers.get("content-type")!)!;
  return { bytes: new Uint8Array(await req.arrayBuffer()), boundary };
}

/** `bytes` as a stream of chunks whose sizes cycle through `sizes`. */
function chunked(bytes: Uint8Array, sizes: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.byteLength) return c.close();
      const n = sizes[i++ % sizes.length];
      c.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  });
}

/** `bytes` as a byte stream (as a request's body is) whose reads give at most `sizes` bytes in turn. */
function byteStream(bytes: Uint8Array, sizes: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let i = 0;
  return new ReadableStream({
    type: "bytes",
    pull(c) {
      if (at >= bytes.byteLength) {
        c.close();
        c.byobRequest?.respond(0);
        return;
      }
      const view = c.byobRequest!.view!;
      const n = Math.min(sizes[i++ % sizes.length], view.byteLength, bytes.byteLength - at);
      new Uint8Array(view.buffer, view.byteOffset, n).set(bytes.subarray(at, at + n));
      c.byobRequest!.respond(n);
      at += n;
    },
    autoAllocateChunkSize: 1024,
  });
}

async function parse(body: ReadableStream<Uint8Array>, boundary: string, maxParts = 100) {
  const parts: { filename: string; type: string; data: Uint8Array }[] = [];
  for await (const part of fileParts(body, boundary, maxParts)) {
    const data = new Uint8Array(await new Response(part.body).arrayBuffer());
    parts.push({ filename: part.filename, type: part.contentType, data });
  }
  return parts;
}

Deno.test("multipart: any chunking gives the same parts; fields are skipped", async () => {
  const binary = new Uint8Array(70_000).map((_, i) => (i * 13) % 256);
  const form = new FormData();
  form.append("note", "a field, skipped");
  form.append("a", new Blob([binary], { type: "application/octet-stream" }), "one.bin");
  form.append("b", new Blob(["\r\n--\r\n"], { type: "text/plain" }), "é ü.txt");
  form.append("c", new Blob([]), "empty");
  const { bytes, boundary } = await encode(form);
  const bodies = [[1], [7, 3], [61], [bytes.byteLength], [1000, 1, 2, 65536]].flatMap((sizes) => [
    { sizes, body: chunked(bytes, sizes) },
    { sizes: `bytes ${sizes}`, body: byteStream(bytes, sizes) },
  ]);
  for (const { sizes, body } of bodies) {
    const parts = await parse(body, boundary);
    assert.deepEqual(parts.map((p) => p.filename), ["one.bin", "é ü.txt", "empty"], `${sizes}`);
    assert.deepEqual(parts[0].data, binary);
    assert.equal(parts[0].type, "application/octet-stream");
    assert.equal(new TextDecoder().decode(parts[1].data), "\r\n--\r\n");
    assert.equal(parts[2].data.byteLength, 0);
  }
});

Deno.test("multipart: an unread part is skipped; malformed bodies are a 400", async () => {
  const form = new FormData();
  form.append("a", new Blob(["first"]), "a.txt");
  form.append("b", new Blob(["second"]), "b.txt");
  const { bytes, boundary } = await encode(form);
  const names = [];
  for await (const part of fileParts(chunked(bytes, [5]), boundary, 10)) names.push(part.filename);
  assert.deepEqual(names, ["a.txt", "b.txt"]);

  const truncated = bytes.slice(0, bytes.byteLength - 20);
  await assert.rejects(() => parse(chunked(truncated, [100]), boundary), ApiError);
  await assert.rejects(() => parse(chunked(bytes, [100]), boundary, 1), /more than 1 parts/);
  assert.equal(multipartBoundary("application/json"), null);
  assert.equal(multipartBoundary('multipart/form-data; boundary="ab c"'), "ab c");
});
