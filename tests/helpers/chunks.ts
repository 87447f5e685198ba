/**
 * Chunked uploads for API tests (`POST /api/upload/partial`): deterministic
 * bytes, one chunk, or a whole file in chunks of a size.
 */
import type { JsonReply, TestApp } from "./app.ts";

/** `length` deterministic bytes. */
export function bytes(length: number): Uint8Array {
  return new Uint8Array(length).map((_, i) => (i * 7 + (i >> 8)) % 251);
}

/** How a chunk is sent: through the test app, or another app over the same services. */
export type Send = (path: string, init: RequestInit) => Promise<Response>;

/** Sends bytes `start`–`end` (inclusive) of `file` as one chunk; returns the JSON reply. */
export async function chunk(
  app: TestApp,
  file: Uint8Array,
  start: number,
  end: number,
  headers: Record<string, string>,
  send: Send = app.request,
): Promise<JsonReply> {
  const form = new FormData();
  form.append("file", new Blob([file.slice(start, end + 1)]), "blob");
  const res = await send("/api/upload/partial", {
    method: "POST",
    body: form,
    headers: {
      "content-range": `bytes ${start}-${end}/${file.byteLength}`,
      "x-zipline-p-filename": "movie.mp4",
      "x-service-p-content-type": "video/mp4",
      "x-service-p-content-length": String(file.byteLength),
      ...(end === file.byteLength - 1 ? { "x-service-p-lastchunk": "true" } : {}),
      ...headers,
    },
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** Sends `file` in chunks of `size`, one after the other; returns every reply. */
export async function sendAll(
  app: TestApp,
  file: Uint8Array,
  size: number,
  headers: Record<string, string>,
): Promise<JsonReply[]> {
  const first = await chunk(app, file, 0, Math.min(size, file.byteLength) - 1, headers);
  const replies = [first];
  const id = { "x-service-p-identifier": first.body.partialIdentifier };
  for (let start = size; start < file.byteLength; start += size) {
    const end = Math.min(start + size, file.byteLength) - 1;
    replies.push(await chunk(app, file, start, end, { ...headers, ...id }));
  }
  return replies;
}
