/**
 * Video thumbnails with the system's `ffmpeg`, as Zipline makes them: the
 * video is copied to a temporary file (an MP4 whose index sits at its end
 * cannot be read from a pipe), ffmpeg scales it down to at most
 * {@link THUMBNAIL_SIZE} pixels, lets its `thumbnail` filter pick a
 * representative frame among the first ones and writes that one frame to its
 * stdout. It runs for at most {@link FFMPEG_TIMEOUT_MS} and may write at most
 * {@link MAX_OUTPUT_BYTES}; past either it is killed.
 *
 * Only local files and the common video containers are read
 * (`-protocol_whitelist`, `-format_whitelist`): an upload that is really a
 * playlist naming other files or URLs is refused rather than followed.
 *
 * At most {@link FFMPEG_AT_ONCE} ffmpeg jobs run at once in a process; the
 * others wait their turn ({@link inFfmpegTurn}, taken before a video is even
 * opened), so a burst of video uploads with instantaneous thumbnails queues
 * rather than starting an ffmpeg, a temporary copy and an open read for each.
 */
import { join } from "node:path";
import { THUMBNAIL_SIZE, UnreadableSourceError } from "./image_facts.ts";

/** How long one ffmpeg run may take. */
export const FFMPEG_TIMEOUT_MS = 60_000;
/** The largest thumbnail ffmpeg may write. */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
/** How many ffmpeg jobs a process runs at once: half its CPUs, at least one. */
export const FFMPEG_AT_ONCE = Math.max(1, Math.floor(navigator.hardwareConcurrency / 2));
/** The demuxers ffmpeg may use: MP4/MOV, Matroska/WebM, AVI, FLV, MPEG-TS/PS, Ogg, ASF/WMV. */
const CONTAINERS = "mov,matroska,avi,flv,mpegts,mpeg,ogg,asf";
/** How much of ffmpeg's stderr a failure reports. */
const STDERR_TAIL = 500;

/** The formats ffmpeg writes a thumbnail in. */
export type VideoThumbnailFormat = "jpg" | "png" | "webp";

const ENCODERS: Record<VideoThumbnailFormat, string[]> = {
  jpg: ["-c:v", "mjpeg", "-q:v", "3", "-f", "image2pipe"],
  png: ["-c:v", "png", "-f", "image2pipe"],
  webp: ["-c:v", "libwebp", "-f", "webp"],
};

/**
 * The thumbnail of `video` in `format`, made by the executable `ffmpeg` with
 * the video copied into a fresh directory under `tempDir` (the system's
 * temporary directory when that one is missing); throws
 * {@link UnreadableSourceError} when ffmpeg fails, times out or writes too much.
 * Call it within {@link inFfmpegTurn}, opening `video` there too.
 */
export async function videoThumbnail(
  ffmpeg: string,
  video: ReadableStream<Uint8Array>,
  format: VideoThumbnailFormat,
  tempDir: string,
): Promise<Uint8Array> {
  const prefix = "ferry-thumbnail-";
  const dir = await Deno.makeTempDir({ dir: tempDir, prefix })
    .catch(() => Deno.makeTempDir({ prefix }));
  try {
    const input = join(dir, "video");
    await video.pipeTo((await Deno.open(input, { write: true, createNew: true })).writable);
    const max = THUMBNAIL_SIZE;
    return await runFfmpeg(ffmpeg, [
      ...["-hide_banner", "-loglevel", "error", "-nostdin"],
      ...["-protocol_whitelist", "file", "-format_whitelist", CONTAINERS, "-i", input],
      ...["-map", "0:v:0", "-an", "-sn", "-dn", "-frames:v", "1"],
      "-vf",
      `scale='min(${max},iw)':'min(${max},ih)':force_original_aspect_ratio=decrease,thumbnail`,
      ...ENCODERS[format],
      "pipe:1",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** ffmpeg jobs running now. */
let running = 0;
/** Jobs waiting for a turn, first come first served. */
const waiting: (() => void)[] = [];

/**
 * Runs `job`, an ffmpeg job with whatever it opens, once fewer than
 * {@link FFMPEG_AT_ONCE} others run; a finished job hands its turn on.
 */
export async function inFfmpegTurn<T>(job: () => Promise<T>): Promise<T> {
  if (running < FFMPEG_AT_ONCE) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await job();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/**
 * Runs ffmpeg with `args` (and `input` on its stdin); resolves with its
 * stdout, within the time and size bounds.
 */
async function runFfmpeg(ffmpeg: string, args: string[], input?: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command(ffmpeg, {
    args,
    stdin: input ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const fed = input ? ReadableStream.from([input]).pipeTo(child.stdin).catch(() => {}) : null;
  let refusal: string | null = null;
  const kill = (why: string) => {
    refusal ??= why;
    try {
      child.kill("SIGKILL");
    } catch {
      // already exited
    }
  };
  const timer = setTimeout(
    () => kill(`ffmpeg ran longer than ${FFMPEG_TIMEOUT_MS} ms`),
    FFMPEG_TIMEOUT_MS,
  );
  try {
    const [output, errors, status] = await Promise.all([
      collect(child.stdout, MAX_OUTPUT_BYTES, () => kill("ffmpeg wrote too much")),
      collect(child.stderr, Infinity, () => {}, STDERR_TAIL),
      child.status,
      fed,
    ]);
    if (refusal !== null) throw new UnreadableSourceError(refusal);
    if (!status.success || output.byteLength === 0) {
      const said = new TextDecoder().decode(errors).trim();
      throw new UnreadableSourceError(`ffmpeg exited with ${status.code}: ${said || "no output"}`);
    }
    return output;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads `stream` whole, calling `tooLong` (and dropping the rest) once it
 * passes `limit` bytes; keeps only the last `tail` bytes when given.
 */
async function collect(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  tooLong: () => void,
  tail = Infinity,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (size > limit) {
      tooLong();
      continue;
    }
    chunks.push(chunk);
    while (size - chunks[0].byteLength >= tail) size -= chunks.shift()!.byteLength;
  }
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  chunks.reduce((at, c) => (bytes.set(c, at), at + c.byteLength), 0);
  return bytes.subarray(Math.max(0, bytes.byteLength - tail));
}
