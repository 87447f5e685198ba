/// <reference lib="dom" />
/**
 * The dashboard's calls to the API key routes: the caller's own keys
 * (`/api/user/keys`) and, for an administrator, those of a user below it
 * (`/api/users/:id/keys`); typed from the server's own zod schemas
 * (type-only imports: nothing of the server is bundled).
 */
import type { z } from "zod";
import type {
  ApiKeyCreateBody,
  ApiKeySchema,
  NewApiKeySchema,
  ScopeInfoSchema,
} from "../../routes/api_keys.ts";
import { api } from "../api.ts";

/** A key as lists show it (never the key itself). */
export type ApiKey = z.infer<typeof ApiKeySchema>;
/** The answer to a key's creation: the one time the key is shown. */
export type NewApiKey = z.infer<typeof NewApiKeySchema>;
/** A scope as the server lists it, with what it allows. */
export type KeyScope = z.infer<typeof ScopeInfoSchema>;
/** A scope's name. */
export type ScopeName = KeyScope["name"];

/** The keys route of `userId`'s keys, or of the caller's own without one. */
const keysOf = (userId?: string) =>
  userId ? `/api/users/${encodeURIComponent(userId)}/keys` : "/api/user/keys";

/** The keys of `userId` (an administrator's view), or the caller's own. */
export function listKeys(userId?: string): Promise<ApiKey[]> {
  return api<ApiKey[]>("GET", keysOf(userId));
}

/** Revokes one key of `userId`, or of the caller. */
export function revokeKey(key: ApiKey, userId?: string): Promise<unknown> {
  return api("DELETE", `${keysOf(userId)}/${encodeURIComponent(key.id)}`);
}

/** Revokes every key of `userId`, or of the caller. */
export function revokeAllKeys(userId?: string): Promise<unknown> {
  return api("DELETE", keysOf(userId));
}

/** Makes a key of the caller's. */
export function createKey(
  name: string,
  scopes: ScopeName[],
  expiresAt: string | null,
): Promise<NewApiKey> {
  const body: z.input<typeof ApiKeyCreateBody> = { name, scopes, expiresAt };
  return api<NewApiKey>("POST", "/api/user/keys", body);
}

/** The scopes a key may carry. */
export function keyScopes(): Promise<KeyScope[]> {
  return api<KeyScope[]>("GET", "/api/user/keys/scopes");
}
