/**
 * The bytes of share links, outside `/api` (`core/shared.ts`):
 * `/s/<code>/raw` (a file link's file, with ranges, as `/raw` serves it),
 * `/s/<code>/files/<fileId>` (a file of a folder link's folder) and
 * `/s/<code>/zip` (a folder link's files as one archive). The link's page,
 * `/s/<code>`, is with the other pages (`web/mod.tsx`). Not rate limited, as
 * public file serving is not; not part of the API document.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { serveShared, shareCookieName, sharedArchive, type ShareProof } from "../core/shared.ts";
import { contentDisposition } from "../core/files/http.ts";
import { storable } from "../core/links.ts";
import { notFound } from "../core/errors.ts";
import { type AppEnv, attempter } from "./env.ts";
import { bytesRequest, fileResponse } from "./public.ts";

/** How the request proves a link's password: its cookie, and who sends it. */
export function shareProof(c: Context<AppEnv>): ShareProof {
  return { cookie: (id) => getCookie(c, shareCookieName(id)), ...attempter(c) };
}

/** The link's code from the path; 404 for one no store could hold. */
function codeOf(c: Context<AppEnv>): string {
  const code = storable(c.req.param("code") ?? "");
  if (code === null || code.length > 100) throw notFound();
  return code;
}

/** The bytes a link serves: its file, or `fileId` of its folder. */
async function bytes(c: Context<AppEnv>, fileId: string | null) {
  const download = c.req.query("download");
  const asked = download !== undefined && download !== "false" && download !== "0";
  const req = bytesRequest(c, asked, undefined);
  return fileResponse(await serveShared(c.var.services, codeOf(c), fileId, req, shareProof(c)));
}

/** The byte routes of share links. */
export const sharedLinkRoutes = new Hono<AppEnv>()
  .on(["GET", "HEAD"], "/s/:code/raw", (c) => bytes(c, null))
  .on(["GET", "HEAD"], "/s/:code/files/:fileId", (c) => bytes(c, c.req.param("fileId")))
  .get("/s/:code/zip", async (c) => {
    const archive = await sharedArchive(c.var.services, codeOf(c), shareProof(c));
    return c.body(archive.stream, 200, {
      "content-type": "application/zip",
      "content-disposition": contentDisposition("attachment", `${archive.name}.zip`),
      "cache-control": "no-store",
    });
  });
