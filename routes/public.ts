/**
 * Public file serving, outside `/api`: `GET /raw/:name` and
 * `GET <filesRoute>/:name`, as resolvers of the public catch-all
 * (`redirects.ts`). Each reads the settings per request, so a changed
 * `filesRoute` applies at once. Not rate limited (spec §8.1); not part of the
 * API document.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { serveFile } from "../core/files/serve.ts";
import { accessCookieName } from "../core/files/passwords.ts";
import { nameUnder } from "../core/links.ts";
import type { AppEnv } from "./env.ts";
import type { PublicResolver } from "./redirects.ts";

/** Serves the file `name` with the request's conditions, range, cookie and `?pw=`. */
async function respondWithFile(c: Context<AppEnv>, name: string): Promise<Response> {
  const query = (key: string) => c.req.query(key);
  const download = query("download");
  const answer = await serveFile(c.get("services"), {
    name,
    head: c.req.method === "HEAD",
    range: c.req.header("range"),
    ifNoneMatch: c.req.header("if-none-match"),
    ifModifiedSince: c.req.header("if-modified-since"),
    ifRange: c.req.header("if-range"),
    download: download !== undefined && download !== "false" && download !== "0",
    cookie: (fileId) => getCookie(c, accessCookieName(fileId)),
    pw: query("pw"),
    ip: c.get("ip"),
    ua: c.req.header("user-agent") ?? "",
  });
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** `/raw/:name`: the bytes of a file. */
const raw: PublicResolver = async (c, path) => {
  const name = nameUnder("/raw", path);
  return name === null ? null : await respondWithFile(c, name);
};

/** `<filesRoute>/:name`, following the current setting. */
const filesRoute: PublicResolver = async (c, path) => {
  const name = nameUnder(c.get("services").settings.get("filesRoute"), path);
  return name === null ? null : await respondWithFile(c, name);
};

/** The file resolvers, asked after short URLs (which win where the routes coincide). */
export const FILE_RESOLVERS: PublicResolver[] = [raw, filesRoute];
