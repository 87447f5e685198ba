/**
 * The v4 export (`POST|GET /api/server/export`): Zipline v4's document,
 * written piece by piece from the store's iterators into a stream, so memory
 * holds one page of records whatever the instance's size. Unlike Zipline it
 * carries no process environment (`request.env` is empty). It is not a
 * snapshot: records changed while it is written may appear in either state.
 */
import { arch, cpus, hostname, platform, release } from "node:os";
import process from "node:process";
import type { UserRecord } from "../../db/users.ts";
import type { Services } from "../services.ts";
import type { ExportContext } from "./context.ts";
import { exportSettings } from "./kinds/settings.ts";
import { EXPORT_ORDER } from "./v4.ts";

/** What `?counts=true` answers: the number of records of each kind. */
export interface ExportCounts {
  users: number;
  files: number;
  urls: number;
  folders: number;
  invites: number;
  thumbnails: number;
  metrics: number;
}

async function count(records: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of records) n++;
  return n;
}

/** The record counts an export would hold. */
export async function exportCounts(s: Services): Promise<ExportCounts> {
  const x: ExportContext = { s, users: await s.store.users.list(), nometrics: false };
  const kind = (key: string) => EXPORT_ORDER.find((k) => k.key === key)!;
  return {
    users: x.users.length,
    files: await count(kind("files").exportRecords(x)),
    urls: await count(kind("urls").exportRecords(x)),
    folders: await count(s.store.folders.iterate()),
    invites: (await s.store.invites.list()).length,
    thumbnails: await count(kind("thumbnails").exportRecords(x)),
    metrics: await s.store.metrics.count(),
  };
}

/** The `versions` and `request` parts, naming the exporting user. */
function header(s: Services, caller: UserRecord | null) {
  const who = caller ?? { id: "ferry", username: "cli" };
  return {
    versions: { zipline: s.build.version, node: process.version, export: "4" },
    request: {
      user: `${who.id}:${who.username.replaceAll(":", "_")}`,
      date: new Date(s.clock.now()).toISOString(),
      os: {
        platform: platform(),
        arch: arch(),
        cpus: cpus().length,
        hostname: hostname(),
        release: release(),
      },
      env: {},
    },
  };
}

/** The document as JSON text, in pieces. */
async function* pieces(
  s: Services,
  caller: UserRecord | null,
  nometrics: boolean,
): AsyncIterable<string> {
  const head = JSON.stringify(header(s, caller));
  yield head.slice(0, -1) + `,"data":{"settings":${JSON.stringify(exportSettings(s))}`;
  const x: ExportContext = { s, users: await s.store.users.list(), nometrics };
  for (const kind of EXPORT_ORDER) {
    yield `,${JSON.stringify(kind.key)}:[`;
    let first = true;
    for await (const record of kind.exportRecords(x)) {
      yield (first ? "" : ",") + JSON.stringify(record);
      first = false;
    }
    yield "]";
  }
  yield "}}";
}

/**
 * The export document as a byte stream, pulled as the client reads it
 * (pieces are gathered into chunks of about 64 KiB).
 */
export function exportStream(
  s: Services,
  caller: UserRecord | null,
  options: { nometrics?: boolean } = {},
): ReadableStream<Uint8Array> {
  const source = pieces(s, caller, options.nometrics ?? false)[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = "";
      while (chunk.length < 65536) {
        const next = await source.next();
        if (next.done) {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        chunk += next.value;
      }
      controller.enqueue(encoder.encode(chunk));
    },
    async cancel() {
      await source.return?.();
    },
  });
}
