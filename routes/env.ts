/** The Hono environment every Ferry router shares. */
import type { Context } from "hono";
import type { SessionRecord, UserRecord } from "../db/store.ts";
import type { Services } from "../core/services.ts";

/** Context variables set by the app's middleware. */
export interface AppEnv {
  Variables: {
    services: Services;
    /** The authenticated user, `null` when anonymous. Set by the auth middleware. */
    user: UserRecord | null;
    /** The session the request came with, `null` for token auth or anonymous. */
    session: SessionRecord | null;
    /** The client's IP address (proxy headers honoured only when trusted). */
    ip: string;
    /** Set in tests: responses are checked against their declared schemas. */
    checkResponses: boolean;
  };
}

/** The authenticated user of a route whose auth level is above `none`. */
export function currentUser(c: Context<AppEnv>): UserRecord {
  const user = c.var.user;
  if (!user) throw new Error("currentUser on a route without authentication");
  return user;
}
