/**
 * Request bodies' bounds. The size limit of a declared JSON body, checked
 * before the body is read whole: a `Content-Length` over the limit is refused
 * at once, and a body without one (chunked) is read up to the limit and
 * refused as soon as it grows past it. Streamed bodies (uploads, imports)
 * declare no JSON body and never pass here; they are read through
 * {@link streamedBody}, which turns a body that ends early into a 400.
 */
import type { Context, MiddlewareHandler } from "hono";
import { ApiError, badRequest } from "../../core/errors.ts";
import type { AppEnv } from "../env.ts";
import { byobReader } from "../../storage/datasource.ts";

/** The limit of a declared JSON body unless its route declares another. */
export const JSON_BODY_LIMIT = 1024 * 1024;

const tooLarge = (max: number) =>
  new ApiError(413, `Request body is too large: at most ${max} bytes`);

/** A body that ended before its end (the client went away or half-closed). */
export const truncatedBody = () => badRequest("The request body ended before it was complete");

/** Reads `body` whole, refusing it (413) once it passes `max` bytes. */
async function readAtMost(
  body: ReadableStream<Uint8Array>,
  max: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch {
        throw truncatedBody();
      }
      if (read.done) break;
      size += read.value.byteLength;
      if (size > max) throw tooLarge(max);
      chunks.push(read.value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** Refuses (413) a request body of more than `max` bytes before it is read whole. */
export function bodyLimit(max: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return await next();
    const length = c.req.header("content-length");
    if (length !== undefined && !c.req.header("transfer-encoding")) {
      if (Number(length) > max) throw tooLarge(max);
      return await next();
    }
    c.req.raw = new Request(c.req.raw, { body: await readAtMost(body, max) });
    await next();
  };
}

/** The buffer a default read of {@link streamedBody} is given (as a request body's own reads). */
const READ_CHUNK = 64 * 1024;

/**
 * The request body to stream (uploads, imports), or `null` without one: a
 * read that fails (the body ended before its `Content-Length`, the client
 * went away) fails with a 400 instead of the connection's error. A byte
 * stream (a request's body) stays one: a reader's own buffer (BYOB) is
 * read into straight from the connection, so a consumer that uses one
 * buffer again and again (`reusedChunks`) allocates nothing per chunk.
 */
export function streamedBody(c: Context<AppEnv>): ReadableStream<Uint8Array> | null {
  const body = c.req.raw.body;
  if (!body) return null;
  const byob = byobReader(body);
  if (byob) return forwardedBytes(byob);
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch {
        controller.error(truncatedBody());
        return;
      }
      if (read.done) controller.close();
      else controller.enqueue(read.value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

/**
 * A byte stream reading `byob` into each read's own buffer: the reader's
 * (BYOB) or one of {@link READ_CHUNK} bytes; a failed read errors it with a 400.
 */
function forwardedBytes(byob: ReadableStreamBYOBReader): ReadableStream<Uint8Array> {
  return new ReadableStream({
    type: "bytes",
    autoAllocateChunkSize: READ_CHUNK,
    async pull(controller) {
      // Always set: a default read is given a buffer of READ_CHUNK bytes.
      const request = controller.byobRequest!;
      const view = request.view!;
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await byob.read(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
      } catch {
        controller.error(truncatedBody());
        return;
      }
      // The read took the buffer over; what it answers is a view of the same memory.
      if (read.done) controller.close();
      if (read.value) request.respondWithNewView(read.value);
    },
    cancel: (reason) => byob.cancel(reason),
  });
}
