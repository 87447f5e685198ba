/**
 * Scoped API keys: access a user hands out and takes back. A key is sent
 * like the token (`Authorization: fk_…`), may do only what its scopes name
 * (each route declares the one it needs, `routes/define.ts`), may expire,
 * and is revoked alone. The store keeps its SHA-256; the key is shown once,
 * when it is made. No scope lets a key manage users, settings, keys or
 * credentials: routes without a scope refuse keys. The user's one token
 * stays as it is, with all the user's rights, for Zipline's clients.
 */
import type { ApiKeyRecord } from "../db/api_keys.ts";
import { FreshCache } from "../db/fresh_cache.ts";
import type { UserRecord } from "../db/users.ts";
import { newId, randomString } from "./clock.ts";
import { ApiError, badRequest, forbidden, notFound } from "./errors.ts";
import { canManage } from "./roles.ts";
import { sha256Now } from "./secrets.ts";
import { perServices, type Services } from "./services.ts";

/**
 * Every scope a key may hold, declared once: what it allows (for the
 * OpenAPI document and the dashboard) and what a key without it may not do
 * (for the 403's message, "This key may not …").
 */
export const API_KEY_SCOPES = {
  "files:write": {
    allows: "Upload files (whole, chunked and resumable), change their details and tag them",
    refused: "upload or change files",
  },
  "files:read": {
    allows: "List and download files, and read folders and tags",
    refused: "list or read files",
  },
  "files:delete": { allows: "Delete files", refused: "delete files" },
  "urls:write": {
    allows: "Shorten URLs, and change or delete short URLs",
    refused: "shorten or change URLs",
  },
  "urls:read": { allows: "List short URLs", refused: "list short URLs" },
  "folders:write": {
    allows: "Create, change and delete folders, and put files in them",
    refused: "create or change folders",
  },
  "account:read": {
    allows: "Read the account (profile, stats) and the settings a dashboard reads",
    refused: "read the account",
  },
} as const;

/** A scope a key may hold. */
export type ApiKeyScope = keyof typeof API_KEY_SCOPES;

/** Every scope, in the order declared. */
export const API_KEY_SCOPE_NAMES = Object.keys(API_KEY_SCOPES) as [ApiKeyScope, ...ApiKeyScope[]];

/** Every scope with what it allows, for a client's scope picker. */
export function apiKeyScopes() {
  return API_KEY_SCOPE_NAMES.map((name) => ({ name, allows: API_KEY_SCOPES[name].allows }));
}

/** What every key begins with, so that it is told from a token (and found by scanners). */
export const API_KEY_PREFIX = "fk_";
/** Random characters after the prefix: 43 alphanumerics, about 256 bits. */
const KEY_LENGTH = 43;
/** Keys a user may hold at once. */
export const MAX_KEYS_PER_USER = 100;
/** How stale a key's `lastUsedAt` may get before a request writes it again. */
export const KEY_USED_STEP_MS = 60 * 1000;

/** `true` when an `Authorization` value is an API key rather than a token. */
export function isApiKey(authorization: string): boolean {
  return authorization.startsWith(API_KEY_PREFIX);
}

/** The SHA-256 under which the store keeps `key`. */
export function hashApiKey(key: string): string {
  return sha256Now(key);
}

/**
 * The hashes of keys presented lately that named a key, per instance, so
 * that a key's every request does not hash it again (node:crypto's SHA-256
 * costs more than the rest of the key's check; decrypted tokens are kept
 * alike, `tokens.ts`). Bounded; a key is hashed again after an hour.
 */
const presentedHashes = perServices((_: Pick<Services, "clock">) =>
  new FreshCache<string>({ ttlMs: 60 * 60 * 1000, maxEntries: 1024, maxBytes: 512 * 1024 })
);

/** A key as every answer but its creation's shows it: never the key. */
export function apiKeyView(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    scopes: k.scopes as ApiKeyScope[],
    createdAt: k.createdAt.toISOString(),
    expiresAt: k.expiresAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  };
}

/** What a new key is made with. */
export interface NewApiKey {
  name: string;
  scopes: ApiKeyScope[];
  /** `null` or absent: never expires. */
  expiresAt?: Date | null;
}

/** A new key for `userId` and its record: the one time the key exists outside its holder. */
export function mintApiKey(
  s: Pick<Services, "clock" | "random">,
  userId: string,
  input: NewApiKey,
): { key: string; record: ApiKeyRecord } {
  const now = s.clock.now();
  const key = API_KEY_PREFIX + randomString(s.random, KEY_LENGTH);
  const record: ApiKeyRecord = {
    id: newId(s.random, now),
    userId,
    name: input.name,
    scopes: [...new Set(input.scopes)],
    hash: hashApiKey(key),
    createdAt: new Date(now),
    expiresAt: input.expiresAt ?? null,
    lastUsedAt: null,
  };
  return { key, record };
}

/**
 * Makes a key for `user`: its view and, this once, the key. The expiry must
 * lie ahead; a user holds {@link MAX_KEYS_PER_USER} keys at most.
 */
export async function createApiKey(s: Services, user: UserRecord, input: NewApiKey) {
  if (input.expiresAt && input.expiresAt.getTime() <= s.clock.now()) {
    throw badRequest("expiresAt must be in the future", [
      { path: ["expiresAt"], message: "must be in the future", code: "custom" },
    ]);
  }
  if ((await s.store.apiKeys.listByUser(user.id)).length >= MAX_KEYS_PER_USER) {
    throw badRequest(`You have ${MAX_KEYS_PER_USER} API keys, the most allowed; revoke one first`);
  }
  const { key, record } = mintApiKey(s, user.id, input);
  await s.store.apiKeys.create(record);
  s.logger.info("api key created", { user: user.username, id: record.id, scopes: record.scopes });
  return { ...apiKeyView(record), key };
}

/** The user's keys, oldest first, without the keys themselves. */
export async function listApiKeys(s: Services, user: UserRecord) {
  return (await s.store.apiKeys.listByUser(user.id)).map(apiKeyView);
}

/** Key `id` of user `userId`; 404 for another's or none. */
async function ownKey(s: Services, userId: string, id: string): Promise<ApiKeyRecord> {
  const key = await s.store.apiKeys.get(id);
  if (!key || key.userId !== userId) throw notFound();
  return key;
}

/** Renames one of the user's keys. */
export async function renameApiKey(s: Services, user: UserRecord, id: string, name: string) {
  await ownKey(s, user.id, id);
  const renamed = await s.store.apiKeys.rename(id, name);
  if (!renamed) throw notFound();
  return apiKeyView(renamed);
}

/**
 * Revokes key `id` of `owner`, by `by`: refused at once by this process,
 * within a second by every other.
 */
async function revoke(s: Services, owner: UserRecord, id: string, by: UserRecord) {
  await ownKey(s, owner.id, id);
  const removed = await s.store.apiKeys.delete(id);
  if (!removed) throw notFound();
  s.logger.info("api key revoked", { id, user: owner.username, by: by.username });
  return apiKeyView(removed);
}

/** Revokes every key of `owner`, by `by`; how many there were. */
async function revokeAll(s: Services, owner: UserRecord, by: UserRecord) {
  const deleted = await s.store.apiKeys.deleteByUser(owner.id);
  s.logger.info("api keys revoked", { user: owner.username, deleted, by: by.username });
  return { deleted };
}

/** Revokes one of the user's own keys. */
export function revokeApiKey(s: Services, user: UserRecord, id: string) {
  return revoke(s, user, id, user);
}

/** Revokes all of the user's own keys (its token and sessions stay). */
export function revokeAllApiKeys(s: Services, user: UserRecord) {
  return revokeAll(s, user, user);
}

/**
 * User `id`, when `caller` may see and revoke its keys: an administrator
 * over users of lower roles (`roles.ts`); 403 otherwise, 404 when there is none.
 */
async function managedKeyOwner(s: Services, caller: UserRecord, id: string) {
  const user = await s.store.users.get(id);
  if (!user) throw notFound();
  if (!canManage(caller.role, user.role)) throw forbidden("You cannot manage this user's keys");
  return user;
}

/** An administrator's view of the keys of user `userId`, below its role. */
export async function listUserApiKeys(s: Services, caller: UserRecord, userId: string) {
  return await listApiKeys(s, await managedKeyOwner(s, caller, userId));
}

/** An administrator revokes key `keyId` of user `userId`, below its role. */
export async function revokeUserApiKey(
  s: Services,
  caller: UserRecord,
  userId: string,
  keyId: string,
) {
  return await revoke(s, await managedKeyOwner(s, caller, userId), keyId, caller);
}

/** An administrator revokes every key of user `userId`, below its role. */
export async function revokeAllUserApiKeys(s: Services, caller: UserRecord, userId: string) {
  return await revokeAll(s, await managedKeyOwner(s, caller, userId), caller);
}

/**
 * The key and its user for a presented key, or the 401 every process gives
 * within a second of its deletion (at once on this one) and from its expiry
 * on. `lastUsedAt` is written at most once per {@link KEY_USED_STEP_MS}.
 */
export async function resolveApiKey(
  s: Services,
  presented: string,
): Promise<{ key: ApiKeyRecord; user: UserRecord }> {
  const now = s.clock.now();
  const memo = presentedHashes(s);
  const known = memo.peek(presented, now);
  const hash = known?.value ?? hashApiKey(presented);
  const key = await s.store.apiKeys.findByHashCached(hash);
  if (!key) throw new ApiError(401, "invalid authorization token");
  if (!known) memo.set(presented, now, hash);
  if (key.expiresAt && key.expiresAt.getTime() <= now) {
    throw new ApiError(401, "This API key has expired");
  }
  const user = await s.store.users.getCached(key.userId);
  if (!user) throw new ApiError(401, "invalid authorization token");
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() >= KEY_USED_STEP_MS) {
    await s.store.apiKeys.markUsed(key, new Date(now));
  }
  return { key, user };
}

/** Which key scope a route needs (`scope`), and how it is named in a refusal (`route`). */
export interface KeyAccess {
  scope?: ApiKeyScope;
  /** `METHOD /api/path`, for the refusal of a route no key may call. */
  route?: string;
}

/** `true` when `key` may call a route declaring `access`. */
export function keyAllows(key: ApiKeyRecord, access: KeyAccess): boolean {
  return access.scope !== undefined && key.scopes.includes(access.scope);
}

/** The 403 of `key` on a route declaring `access`: "This key may not …". */
export function keyRefusal(access: KeyAccess): ApiError {
  if (access.scope) {
    const { refused } = API_KEY_SCOPES[access.scope];
    return forbidden(`This key may not ${refused}: it needs the scope ${access.scope}`);
  }
  return forbidden(
    `This key may not call ${access.route ?? "this route"}: no API key may; ` +
      "use a session or the account's token",
  );
}

/** Throws {@link keyRefusal} unless the request came without a key or with one holding `scope`. */
export function requireKeyScope(key: ApiKeyRecord | null, scope: ApiKeyScope): void {
  if (key && !keyAllows(key, { scope })) throw keyRefusal({ scope });
}
