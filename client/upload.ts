/// <reference lib="dom" />
/**
 * Uploads one file from the browser: whole through `POST /api/upload`, or in
 * chunks through `POST /api/upload/partial` when it is larger than the
 * server's chunk size. A chunked upload resumes: its identifier is kept in
 * `localStorage` under the file's name, size and date, and the server says
 * which ranges it already has (`GET /api/upload/partial/{identifier}`), so a
 * lost connection is retried and the same file chosen again after a reload
 * goes on where it stopped. A signed-in user's large files go through tus
 * instead (`/api/upload/tus`, with tus-js-client, loaded only when such an
 * upload starts), which resumes the same ways; Zipline's chunked route stays
 * for anonymous and upload-request uploads.
 */
import { ApiFailure } from "./api.ts";
import { PARTIAL_URL, partialStatusUrl, TUS_URL, UPLOAD_URL, type Uploaded } from "./api/upload.ts";
import { optionHeaders, type UploadOptions } from "./upload_options.ts";

export type { Uploaded, UploadOptions };

/** How far an upload is. */
export interface Progress {
  sent: number;
  total: number;
  /** Bytes per second over the last few seconds. */
  speed: number;
  /** Seconds left at that speed (`Infinity` before it is known). */
  secondsLeft: number;
}

/** A running upload. */
export interface UploadTask {
  done: Promise<Uploaded>;
  cancel(): void;
}

/** Where an upload stands in the server's words (`GET /api/upload/partial/{identifier}`). */
interface PartialStatus {
  partSize: number;
  received: [number, number][];
}

/** Thrown when the user cancelled; not shown as a failure. */
export class Cancelled extends Error {
  constructor() {
    super("Cancelled");
  }
}

const RETRIES = 6;
const STORAGE_PREFIX = "ferry-upload:";

/** The `localStorage` key that remembers a chunked upload of `file`. */
export function resumeKey(file: File): string {
  return `${STORAGE_PREFIX}${file.name}:${file.size}:${file.lastModified}`;
}

/** The `localStorage` key that marks a tus upload of `file` under way (tus-js-client keeps its URL). */
function tusKey(file: File): string {
  return `${resumeKey(file)}:tus`;
}

/** Names of files whose chunked or tus upload stopped before the end, for the page to mention. */
export function unfinishedUploads(): string[] {
  const names: string[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith(STORAGE_PREFIX)) {
      names.push(key.slice(STORAGE_PREFIX.length).replace(/:\d+:\d+(:tus)?$/, ""));
    }
  }
  return names;
}

/** Measures speed over a sliding window of a few seconds. */
class Speedometer {
  #samples: [number, number][] = [];

  /** Notes that `sent` bytes are out at this moment; the current speed in bytes per second. */
  note(sent: number): number {
    const now = performance.now();
    this.#samples.push([now, sent]);
    while (this.#samples.length > 2 && now - this.#samples[0][0] > 3000) this.#samples.shift();
    const [t0, s0] = this.#samples[0];
    return now > t0 ? ((sent - s0) * 1000) / (now - t0) : 0;
  }
}

/** What one upload's requests share. */
export interface Sending {
  /** The option headers. */
  headers: Record<string, string>;
  /** Sent without the session cookie: an anonymous upload into an open folder. */
  anonymous: boolean;
  signal: AbortSignal;
}

/**
 * One POST. With the session it goes by XHR, which reports upload
 * progress; an anonymous one goes by `fetch`, the only way to leave out the
 * cookie on this origin (progress then moves when the request is done).
 */
export function send(
  url: string,
  headers: Record<string, string>,
  body: FormData | Blob,
  onSent: (bytes: number) => void,
  { anonymous, signal }: Sending,
): Promise<{ status: number; body: unknown }> {
  if (anonymous) {
    return fetch(url, { method: "POST", headers, body, credentials: "omit", signal }).then(
      async (res) => ({ status: res.status, body: await res.json().catch(() => null) }),
      (error) => {
        throw signal.aborted ? new Cancelled() : new TypeError(String(error));
      },
    );
  }
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.responseType = "json";
    xhr.upload.onprogress = (event) => onSent(event.loaded);
    xhr.onload = () => resolve({ status: xhr.status, body: xhr.response });
    xhr.onerror = () => reject(new TypeError("The connection was lost"));
    xhr.onabort = () => reject(new Cancelled());
    signal.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

/** The failure an answer stands for. */
function failure(status: number, body: unknown): ApiFailure {
  const error = (body as { error?: unknown } | null)?.error;
  return new ApiFailure(status, typeof error === "string" ? error : `Upload failed (${status})`);
}

/** Waits `ms`, or until the browser is back online, whichever is later; stops on abort. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  if (!navigator.onLine) {
    await new Promise((resolve) => addEventListener("online", resolve, { once: true }));
  }
  if (signal.aborted) throw new Cancelled();
}

/** A form with the file (or a slice of it) as its one `file` part. */
function form(file: Blob, name: string): FormData {
  const data = new FormData();
  data.append("file", file, name);
  return data;
}

/**
 * Starts uploading `file`. Chunked when `chunkSize` is set and the file is
 * larger; `onProgress` hears every step.
 */
export function startUpload(
  file: File,
  options: UploadOptions,
  chunkSize: number | null,
  onProgress: (progress: Progress) => void,
  anonymous = false,
): UploadTask {
  const abort = new AbortController();
  const meter = new Speedometer();
  const report = (bytes: number) => {
    const sent = Math.min(bytes, file.size);
    const speed = meter.note(sent);
    const left = file.size - sent;
    onProgress({ sent, total: file.size, speed, secondsLeft: speed > 0 ? left / speed : Infinity });
  };
  const sending = { headers: optionHeaders(options), anonymous, signal: abort.signal };
  const tusAllowed = !anonymous && !sending.headers["x-service-request"];
  const done = chunkSize !== null && file.size > chunkSize
    ? (tusAllowed ? uploadTus : uploadChunked)(file, chunkSize, report, sending)
    : uploadWhole(file, report, sending);
  return { done, cancel: () => abort.abort() };
}

async function uploadWhole(
  file: File,
  report: (sent: number) => void,
  sending: Sending,
): Promise<Uploaded> {
  report(0);
  const reply = await send(UPLOAD_URL, sending.headers, form(file, file.name), report, sending);
  if (reply.status !== 200) throw failure(reply.status, reply.body);
  report(file.size);
  return (reply.body as { files: Uploaded[] }).files[0];
}

/** The ranges the server holds of an upload it still knows, or `null`. */
async function serverStatus(
  identifier: string,
  { anonymous }: Sending,
): Promise<PartialStatus | null> {
  const res = await fetch(partialStatusUrl(identifier), {
    credentials: anonymous ? "omit" : "same-origin",
  });
  return res.ok ? await res.json() as PartialStatus : null;
}

/** Whether the inclusive range `[start, end]` is inside one of `received`. */
function holds(received: [number, number][], start: number, end: number): boolean {
  return received.some(([from, to]) => from <= start && end <= to);
}

async function uploadChunked(
  file: File,
  chunkSize: number,
  report: (sent: number) => void,
  sending: Sending,
): Promise<Uploaded> {
  const key = resumeKey(file);
  let identifier = localStorage.getItem(key);
  let partSize = chunkSize;
  let received: [number, number][] = [];
  if (identifier) {
    const status = await serverStatus(identifier, sending);
    if (status) ({ partSize, received } = status);
    else identifier = null;
  }
  const chunks = Math.ceil(file.size / partSize);
  const have = (i: number) =>
    holds(received, i * partSize, Math.min(file.size, (i + 1) * partSize) - 1);
  let sent = Array.from({ length: chunks }, (_, i) => i).filter(have)
    .reduce((sum, i) => sum + Math.min(partSize, file.size - i * partSize), 0);
  report(sent);
  for (let i = 0; i < chunks; i++) {
    if (have(i)) continue;
    const start = i * partSize;
    const end = Math.min(file.size, start + partSize) - 1;
    const chunkHeaders: Record<string, string> = {
      ...sending.headers,
      "content-range": `bytes ${start}-${end}/${file.size}`,
      "x-service-p-filename": file.name,
      "x-service-p-content-type": file.type || "application/octet-stream",
      "x-service-p-content-length": String(file.size),
      ...(identifier ? { "x-service-p-identifier": identifier } : {}),
      ...(i === chunks - 1 ? { "x-service-p-lastchunk": "true" } : {}),
    };
    const body = form(file.slice(start, end + 1), file.name);
    const reply = await sendWithRetries(chunkHeaders, body, (n) => report(sent + n), sending);
    const answer = reply as { partialIdentifier: string; files: Uploaded[] };
    if (!identifier) {
      identifier = answer.partialIdentifier;
      localStorage.setItem(key, identifier);
    }
    sent += end - start + 1;
    report(sent);
    if (answer.files.length > 0) {
      localStorage.removeItem(key);
      return answer.files[0];
    }
  }
  throw new ApiFailure(409, "The server has every chunk but did not finish the file");
}

/** Sends one chunk, retrying with a growing pause while the connection is lost. */
async function sendWithRetries(
  headers: Record<string, string>,
  body: FormData,
  onSent: (bytes: number) => void,
  sending: Sending,
): Promise<unknown> {
  for (let attempt = 0;; attempt++) {
    try {
      const reply = await send(PARTIAL_URL, headers, body, onSent, sending);
      if (reply.status === 200) return reply.body;
      if (reply.status < 500 && reply.status !== 429) throw failure(reply.status, reply.body);
      if (attempt >= RETRIES) throw failure(reply.status, reply.body);
    } catch (error) {
      if (!(error instanceof TypeError) || attempt >= RETRIES) throw error;
    }
    await pause(1000 * 2 ** Math.min(attempt, 4), sending.signal);
  }
}

/**
 * Sends `file` through tus in PATCHes of `chunkSize` (the server's part
 * size, so no bytes wait between them), resuming an upload of the same file
 * that tus-js-client remembers; the file is then read back by its id.
 */
async function uploadTus(
  file: File,
  chunkSize: number,
  report: (sent: number) => void,
  sending: Sending,
): Promise<Uploaded> {
  const tus = await import("tus-js-client");
  const id = await new Promise<string>((resolve, reject) => {
    let fileId: string | null = null;
    const upload = new tus.Upload(file, {
      endpoint: TUS_URL,
      chunkSize,
      retryDelays: [0, 1000, 2000, 4000, 8000, 16000, 16000],
      metadata: { filename: file.name, filetype: file.type || "application/octet-stream" },
      headers: sending.headers,
      removeFingerprintOnSuccess: true,
      onProgress: (sent) => report(sent),
      onAfterResponse(_req, res) {
        fileId = res.getHeader("X-Ferry-File-Id") ?? fileId;
      },
      onSuccess: () =>
        fileId ? resolve(fileId) : reject(new ApiFailure(500, "The server named no file")),
      onError(error) {
        const res = (error as { originalResponse?: { getStatus(): number; getBody(): string } })
          .originalResponse;
        if (!res) return reject(new ApiFailure(0, error.message));
        let body: unknown = null;
        try {
          body = JSON.parse(res.getBody());
        } catch {
          // not JSON
        }
        reject(failure(res.getStatus(), body));
      },
    });
    sending.signal.addEventListener("abort", () => {
      upload.abort();
      reject(new Cancelled());
    }, { once: true });
    report(0);
    localStorage.setItem(tusKey(file), "");
    upload.findPreviousUploads().then((previous) => {
      if (previous.length > 0) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    }, reject);
  });
  localStorage.removeItem(tusKey(file));
  const res = await fetch(`/api/user/files/${encodeURIComponent(id)}`);
  const stored = await res.json();
  if (!res.ok) throw failure(res.status, stored);
  report(file.size);
  return { id, name: stored.name, type: stored.type, url: stored.url };
}
