/**
 * The fast path the server asks before the app for `GET /raw/<name>`, the
 * request of every embedded screenshot: while the store's name cache holds the
 * file and nothing about it or the request needs more (no password, no max
 * views, small; no range, no query: `serveCachedSmall` in
 * `core/files/serve.ts`), the answer is made without Hono: the file's headers
 * and bytes, the view counted, finished as every answer is (the CORS header
 * and the log line, `front_door.ts`), as the app's `/raw` route answers. Every other request is `null`: ask the app. No short
 * URL or invite answers a path under `/raw` (a reserved route), so the app's
 * public catch-all would come to the same file.
 */
import { serveCachedSmall } from "../core/files/serve.ts";
import { THUMBNAIL_PREFIX } from "../core/files/naming.ts";
import { nameUnder } from "../core/links.ts";
import type { Services } from "../core/services.ts";
import { visitSignals } from "../core/visits/record.ts";
import { requestIp, type ServeInfo } from "./env.ts";
import type { FastPath, Finish } from "./front_door.ts";
import { fileResponse } from "./public.ts";
import { rawPath } from "./redirects.ts";

/** The headers that make a request more than a plain GET for the fast path. */
const NOT_PLAIN = ["range", "if-range"];

/** The app, asked when the fast path finds the request not its own after all. */
type Fallback = (request: Request, info: ServeInfo) => Response | Promise<Response>;

/**
 * The `/raw` fast path over `services`, its answers finished by `finish`: the
 * answer to a request when it can give it (a failure on the way, such as
 * bytes gone, goes to `app`), else `null`.
 */
export function fastRaw(services: Services, finish: Finish, app: Fallback): FastPath {
  return (request, info) => {
    if (request.method !== "GET" || request.url.includes("?")) return null;
    const name = nameUnder("/raw", rawPath(request.url));
    if (name === null || name.startsWith(THUMBNAIL_PREFIX)) return null;
    const { headers } = request;
    if (NOT_PLAIN.some((header) => headers.has(header))) return null;
    const began = finish.begin();
    const answer = serveCachedSmall(services, name, {
      ip: requestIp(services, request, info),
      ua: headers.get("user-agent") ?? "",
      ifNoneMatch: headers.get("if-none-match") ?? undefined,
      ifModifiedSince: headers.get("if-modified-since") ?? undefined,
      visit: () => visitSignals(request, () => requestIp(services, request, info)),
    });
    if (answer === null) return null;
    return answer.then(
      (served) => finish.done(fileResponse(served), "GET", `/raw/${name}`, began),
      () => app(request, info),
    );
  };
}
