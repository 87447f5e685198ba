/** The Hono environment every Ferry router shares. */
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
