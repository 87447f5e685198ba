/**
 * The soak's clients: every request is timed and counted by kind, status and
 * phase (which fault, if any, was under way), and what the server accepted is
 * remembered (name, seed, size, SHA-256) for the checks at the end, which look
 * in the store and the bucket, not here.
 */
import { content, contentSha256 } from "./data.ts";

/** One answered (or failed: status 0) request. */
export interface Sample {
  kind: string;
  status: number;
  ms: number;
  phase: string;
}

/** An upload the server answered 2xx. */
export interface Accepted {
  name: string;
  seed: number;
  size: number;
  sha256: string;
  password?: string;
}

/** A chunked upload the soak started. */
export interface ChunkedRun {
  filename: string;
  seed: number;
  size: number;
  sha256: string;
  identifier: string | null;
  /** The last chunk was answered 2xx with the file… */
  completed: boolean;
  /** …named so. */
  name?: string;
  /** The instances (balancer backends) its chunks went to. */
  backends: Set<string>;
}

/** Everything the soak counted. */
export class Recorder {
  phase = "steady";
  readonly samples: Sample[] = [];
  readonly accepted: Accepted[] = [];
  readonly chunked: ChunkedRun[] = [];
  /** Things that must not happen: each is a failure of the soak. */
  readonly problems: string[] = [];
  /** Things worth reporting that are not failures. */
  readonly notes: string[] = [];

  constructor(readonly started = Date.now()) {}

  /** Seconds since the soak started, for log lines. */
  at(): string {
    return `${((Date.now() - this.started) / 1000).toFixed(1)} s`;
  }

  problem(text: string): void {
    this.problems.push(`${this.at()}: ${text}`);
  }

  note(text: string): void {
    this.notes.push(`${this.at()}: ${text}`);
  }
}

/** An answer: status 0 when the request failed without one. */
export interface Reply {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
  bytes?: Uint8Array;
  ms: number;
}

/** Sends requests to one origin, recording each. */
export class Client {
  constructor(
    readonly origin: string,
    readonly recorder: Recorder,
    readonly headers: Record<string, string> = {},
  ) {}

  /** Sends a request; reads a JSON body, or the bytes when `raw`. Never throws. */
  async send(
    kind: string,
    method: string,
    path: string,
    init: { body?: BodyInit; json?: unknown; headers?: Record<string, string>; raw?: boolean } = {},
    timeoutMs = 30_000,
  ): Promise<Reply> {
    const began = performance.now();
    const headers: Record<string, string> = { ...this.headers, ...init.headers };
    let body = init.body;
    if (init.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(init.json);
    }
    let reply: Reply;
    try {
      const response = await fetch(this.origin + path, {
        method,
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      const data = new Uint8Array(await response.arrayBuffer());
      let parsed: unknown = null;
      if (!init.raw || !response.ok) {
        try {
          parsed = JSON.parse(new TextDecoder().decode(data));
        } catch {
          parsed = null;
        }
      }
      reply = {
        status: response.status,
        headers: response.headers,
        body: parsed,
        bytes: data,
        ms: performance.now() - began,
      };
    } catch {
      reply = { status: 0, headers: new Headers(), body: null, ms: performance.now() - began };
    }
    this.recorder.samples.push({
      kind,
      status: reply.status,
      ms: reply.ms,
      phase: this.recorder.phase,
    });
    return reply;
  }
}

/** A multipart body holding `bytes` as the part `file`. */
export function fileForm(bytes: Uint8Array, filename: string): FormData {
  const form = new FormData();
  form.append(
    "file",
    new Blob([bytes as BlobPart], { type: "application/octet-stream" }),
    filename,
  );
  return form;
}

let seeds = 1;
/** A fresh seed for new content. */
export function nextSeed(): number {
  return seeds++ * 7919 + Math.floor(Math.random() * 1000);
}

/** Uploads `size` bytes of new content in one request; remembers it when answered 2xx. */
export async function uploadSmall(
  client: Client,
  size: number,
  password?: string,
): Promise<Accepted | null> {
  const seed = nextSeed();
  const bytes = content(seed, 0, size);
  const reply = await client.send(
    password ? "upload (password)" : "upload",
    "POST",
    "/api/upload",
    {
      body: fileForm(bytes, `soak-${seed}.bin`),
      headers: password ? { "x-zipline-password": password } : {},
    },
  );
  if (reply.status < 200 || reply.status > 299) return null;
  const name = reply.body?.files?.[0]?.name;
  if (typeof name !== "string") {
    client.recorder.problem(`upload answered ${reply.status} without a file name`);
    return null;
  }
  const accepted: Accepted = {
    name,
    seed,
    size,
    sha256: await contentSha256(seed, size),
    password,
  };
  client.recorder.accepted.push(accepted);
  return accepted;
}

/** Downloads a span of `file` with `Range` and compares it with what was sent. */
export async function downloadRange(client: Client, file: Accepted): Promise<void> {
  const start = Math.floor(Math.random() * file.size);
  const end = Math.min(file.size - 1, start + Math.floor(Math.random() * 65536));
  const query = file.password ? `?pw=${encodeURIComponent(file.password)}` : "";
  const reply = await client.send("download (range)", "GET", `/raw/${file.name}${query}`, {
    headers: { range: `bytes=${start}-${end}` },
    raw: true,
  });
  if (reply.status === 206) {
    if (!same(reply.bytes!, content(file.seed, start, end - start + 1))) {
      client.recorder.problem(`range ${start}-${end} of ${file.name} differs from what was sent`);
    }
  } else if (reply.status === 404) {
    client.recorder.problem(`${file.name}, accepted earlier, answered 404`);
  }
}

/** A password-protected file: refused without the password, served with it. */
export async function passwordAccess(client: Client, file: Accepted): Promise<void> {
  const without = await client.send("password file (no password)", "GET", `/raw/${file.name}`, {
    raw: true,
  });
  if (without.status >= 200 && without.status < 300) {
    client.recorder.problem(`${file.name} was served without its password`);
  }
  await downloadRange(client, file);
}

/** Shortens a URL and follows the short link. */
export async function shortenAndVisit(client: Client, n: number): Promise<void> {
  const destination = `https://example.com/soak/${n}`;
  const made = await client.send("shorten", "POST", "/api/user/urls", {
    json: { destination },
  });
  if (made.status !== 200) return;
  const code = made.body?.code;
  const visit = await client.send("redirect", "GET", `/go/${code}`, { raw: true });
  if (visit.status === 302 && visit.headers.get("location") !== destination) {
    client.recorder.problem(`/go/${code} led to ${visit.headers.get("location")}`);
  } else if (visit.status === 404) {
    client.recorder.problem(`/go/${code}, created just before, answered 404`);
  }
}

/** The part size the soak's instances ask for (`SERVICE_CHUNKS_SIZE`). */
export const CHUNK_BYTES = 5 * 1024 * 1024;
/** How long a chunk is retried while a fault lasts. */
const CHUNK_RETRY_MS = 40_000;

/**
 * Sends `size` bytes of new content in chunks, one request each (so they
 * reach the instances in turn), retrying a chunk that failed for as long as a
 * fault may last. Records the run whatever becomes of it.
 */
export async function uploadChunked(
  client: Client,
  size: number,
  stopped: () => boolean,
): Promise<void> {
  const seed = nextSeed();
  const run: ChunkedRun = {
    filename: `soak-chunked-${seed}.bin`,
    seed,
    size,
    sha256: await contentSha256(seed, size),
    identifier: null,
    completed: false,
    backends: new Set(),
  };
  client.recorder.chunked.push(run);
  for (let start = 0; start < size; start += CHUNK_BYTES) {
    // At the end of the soak an upload stops where it is: it must stay resumable.
    if (stopped() && run.identifier) return;
    const end = Math.min(size, start + CHUNK_BYTES) - 1;
    const last = end === size - 1;
    const headers: Record<string, string> = {
      "content-range": `bytes ${start}-${end}/${size}`,
      "x-zipline-p-filename": run.filename,
      "x-zipline-p-content-type": "application/octet-stream",
      "x-zipline-p-content-length": String(size),
      "x-zipline-original-name": "true",
      ...(last ? { "x-zipline-p-lastchunk": "true" } : {}),
      ...(run.identifier ? { "x-zipline-p-identifier": run.identifier } : {}),
    };
    const bytes = content(seed, start, end - start + 1);
    const until = Date.now() + CHUNK_RETRY_MS;
    let reply: Reply;
    while (true) {
      reply = await client.send("chunk", "POST", "/api/upload/partial", {
        body: fileForm(bytes, run.filename),
        headers,
      }, 180_000);
      const backend = reply.headers.get("x-soak-backend");
      if (backend) run.backends.add(backend);
      const retry = reply.status === 0 || reply.status >= 500 || reply.status === 429;
      if (!retry || Date.now() > until || stopped()) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    if (reply.status !== 200) {
      client.recorder.note(
        `chunked upload ${run.filename} stopped at bytes ${start}-${end}: ${reply.status} ${
          JSON.stringify(reply.body)
        }`,
      );
      return;
    }
    run.identifier ??= reply.body?.partialIdentifier ?? null;
    if (last && reply.body?.files?.length === 1) {
      run.completed = true;
      run.name = reply.body.files[0].name;
    }
  }
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
