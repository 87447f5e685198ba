/**
 * Public file serving, outside `/api`: `GET /raw/:name`, `GET /r/:name`
 * (301 to `/raw/:name`) and `GET <filesRoute>/:name`, as resolvers of the
 * public catch-all (`redirects.ts`). Each reads the settings per request, so
 * a changed `filesRoute` applies at once. Not rate limited (spec §8.1); not
 * part of the API document.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import {
  type BytesRequest,
  type ServeAnswer,
  serveFile,
  serveOnFilesRoute,
  type ServeRequest,
  serveThumbnail,
} from "../core/files/serve.ts";
import { accessCookieName } from "../core/files/passwords.ts";
import { THUMBNAIL_PREFIX } from "../core/files/naming.ts";
import { nameUnder } from "../core/links.ts";
import { type AppEnv, attempter, visitor } from "./env.ts";
import { sessionViewer } from "./session_cookie.ts";

/** Answers a public GET for `path` (percent-encoded), or `null` when the path is not its to answer. */
export type PublicResolver = (c: Context<AppEnv>, path: string) => Promise<Response | null>;

/** What every file-serving route reads of a request: method, range, validators, access proof. */
export function bytesRequest(
  c: Context<AppEnv>,
  download: boolean,
  pw: string | undefined,
): BytesRequest {
  return {
    head: c.req.method === "HEAD",
    range: c.req.header("range"),
    ifNoneMatch: c.req.header("if-none-match"),
    ifModifiedSince: c.req.header("if-modified-since"),
    ifRange: c.req.header("if-range"),
    download,
    cookie: (fileId) => getCookie(c, accessCookieName(fileId)),
    pw,
    viewer: sessionViewer(c),
    visit: visitor(c),
    ...attempter(c),
  };
}

/** Whether `?download` asks for an attachment: present, and neither `false` nor `0`. */
function asksDownload(c: Context<AppEnv>): boolean {
  const download = c.req.query("download");
  return download !== undefined && download !== "false" && download !== "0";
}

/** The serving core's answer as a response. */
export function fileResponse(answer: ServeAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** The request for the file `name`, with its conditions, range, cookie and `?pw=`. */
function serveRequest(c: Context<AppEnv>, name: string): ServeRequest {
  return { ...bytesRequest(c, asksDownload(c), c.req.query("pw")), name };
}

/** Serves the file `name` as `/raw` does. */
async function respondWithFile(c: Context<AppEnv>, name: string): Promise<Response> {
  return fileResponse(await serveFile(c.get("services"), serveRequest(c, name)));
}

/** `/raw/:name`: the bytes of a file. */
const raw: PublicResolver = async (c, path) => {
  const name = nameUnder("/raw", path);
  if (name === null) return null;
  if (name.startsWith(THUMBNAIL_PREFIX)) return await respondWithThumbnail(c, name);
  return await respondWithFile(c, name);
};

/** `/raw/.thumbnail.<fileId>.<ext>`: a thumbnail, while its file has no password; else 404. */
async function respondWithThumbnail(c: Context<AppEnv>, name: string): Promise<Response> {
  const req = bytesRequest(c, asksDownload(c), undefined);
  return fileResponse(await serveThumbnail(c.get("services"), name, req));
}

/** `/r/:name`: Zipline's short form of `/raw/:name`, a permanent redirect there. */
const shortRaw: PublicResolver = (c, path) => {
  const name = nameUnder("/r", path);
  return Promise.resolve(
    name === null ? null : c.redirect(`/raw${path.slice("/r".length)}`, 301),
  );
};

/**
 * `<filesRoute>/:name`, following the current setting: the file's bytes, or
 * its page (`/view/<name>`) for text files, files whose owner turned the view
 * page on, and protected files asked for without their access cookie.
 */
const filesRoute: PublicResolver = async (c, path) => {
  const name = nameUnder(c.get("services").settings.get("filesRoute"), path);
  if (name === null) return null;
  const answer = await serveOnFilesRoute(c.get("services"), serveRequest(c, name));
  if (answer.kind === "bytes") return fileResponse(answer.answer);
  return c.redirect(`/view/${encodeURIComponent(answer.name)}`, 302);
};

/** The file resolvers, asked after short URLs (which win where the routes coincide). */
export const FILE_RESOLVERS: PublicResolver[] = [raw, shortRaw, filesRoute];
