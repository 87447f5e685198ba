/**
 * Who is calling: an API token or a scoped API key (`api_keys.ts`) in the
 * `Authorization` header (the whole value, no scheme word) wins over the
 * session cookie. Failures are the spec's §5 messages, exactly. A key is held
 * to the scope its route declares (403 without it) and is refused by routes
 * that declare none.
 */
import type { SessionRecord } from "../db/sessions.ts";
import type { Role, UserRecord } from "../db/users.ts";
import type { ApiKeyRecord } from "../db/api_keys.ts";
import { isApiKey, type KeyAccess, keyAllows, keyRefusal, resolveApiKey } from "./api_keys.ts";
import { ApiError, forbidden } from "./errors.ts";
import { hasRole } from "./roles.ts";
import { fromAnotherSite, type RequestSource, resolveSession } from "./sessions.ts";
import type { Services } from "./services.ts";
import { safeEqual } from "./secrets.ts";
import { storedTokenOf, tokenUserId } from "./tokens.ts";

/** How much a route asks of its caller. */
export type AuthLevel = "none" | "user" | "admin" | "super";

/** The role each level needs. */
const LEVEL_ROLE: Record<Exclude<AuthLevel, "none">, Role> = {
  user: "USER",
  admin: "ADMIN",
  super: "SUPERADMIN",
};

/** What a request presents: the Authorization header and the session cookie, if any. */
export interface Credentials {
  authorization?: string;
  sessionSecret?: string;
}

/** The caller, once known. */
export interface Caller {
  user: UserRecord | null;
  session: SessionRecord | null;
  /** The API key the request came with, if it came with one. */
  key?: ApiKeyRecord | null;
}

const unauthorized = (message: string) => new ApiError(401, message);

/**
 * Whether the session cookie is what authenticates the request: it is sent,
 * and no `Authorization` header is (as {@link authenticate} picks: a token
 * wins over the cookie, even a token that then fails).
 */
function byCookie({ authorization, sessionSecret }: Credentials): boolean {
  return authorization === undefined && sessionSecret !== undefined && sessionSecret !== "";
}

/** The methods that only read; any other changes something. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses (403) cross-site request forgery: a request that would change
 * something (any method but GET, HEAD and OPTIONS) on the strength of the
 * session cookie ({@link byCookie}), when the browser tells that another site
 * made it ({@link fromAnotherSite}). A request authenticated by an API token,
 * or that carries no session cookie, is not checked.
 */
export function refuseCrossSite(
  method: string,
  credentials: Credentials,
  source: () => RequestSource,
): void {
  if (SAFE_METHODS.has(method) || !byCookie(credentials)) return;
  if (!fromAnotherSite(source())) return;
  throw forbidden(
    "Cross-site request refused: the session cookie is accepted only from this server's own " +
      "pages; send an API token instead",
  );
}

/**
 * Resolves the caller and checks it against `level` and, for a key, against
 * the route's `access`. For `none`, bad credentials make an anonymous caller
 * rather than an error, and so does a key the route does not let in.
 */
export async function authenticate(
  s: Services,
  credentials: Credentials,
  level: AuthLevel,
  access: KeyAccess = {},
): Promise<Caller> {
  let caller: Caller;
  try {
    caller = await identify(s, credentials);
  } catch (error) {
    if (level === "none") return { user: null, session: null };
    throw error;
  }
  if (caller.key && !keyAllows(caller.key, access)) {
    if (level === "none") return { user: null, session: null };
    throw keyRefusal(access);
  }
  if (level === "none") return caller;
  if (!caller.user) throw unauthorized("not logged in");
  if (!hasRole(caller.user.role, LEVEL_ROLE[level])) throw forbidden();
  return caller;
}

async function identify(
  s: Services,
  { authorization, sessionSecret }: Credentials,
): Promise<Caller> {
  if (authorization !== undefined) {
    if (authorization.trim() === "") throw unauthorized("no token");
    if (isApiKey(authorization.trim())) {
      const { key, user } = await resolveApiKey(s, authorization.trim());
      return { user, session: null, key };
    }
    const stored = storedTokenOf(s, authorization.trim());
    if (stored === null) throw unauthorized("could not decrypt token");
    const id = tokenUserId(stored);
    const user = id === null ? null : await s.store.users.getCached(id);
    if (!user || !safeEqual(user.token, stored)) throw unauthorized("invalid authorization token");
    return { user, session: null };
  }
  if (sessionSecret) {
    const found = await resolveSession(s, sessionSecret);
    if (found) return found;
  }
  return { user: null, session: null };
}
