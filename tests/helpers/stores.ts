/**
 * Opens a fresh, empty store of each kind for a test: Deno KV in memory, and
 * PostgreSQL in a new database on the cluster the test task started. The
 * contract suites run on the plain backends; the serving store's suites on a
 * serving store over each, on a manual clock.
 */
import postgres from "postgres";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore, PostgresStore } from "../../db/postgres/mod.ts";
import { migrate } from "../../db/postgres/migrate.ts";
import { MIGRATIONS } from "../../db/postgres/migrations/mod.ts";
import type { FileRecord } from "../../db/files.ts";
import { servingStore } from "../../db/serving.ts";
import type { Backend, Store } from "../../db/store.ts";
import type { UserRecord, UserStore } from "../../db/users.ts";
import { URL_RULE_DEFAULTS, type UrlRecord } from "../../db/urls.ts";
import { ManualClock, newId, systemRandom } from "../../core/clock.ts";
import { newStoredToken } from "../../core/tokens.ts";
import { serviceUrl, skipWithout } from "./services.ts";

/** The store kinds every store-backed suite runs on. */
export const STORE_KINDS = ["kv", "postgres"] as const;
/** A store kind. */
export type StoreKind = typeof STORE_KINDS[number];

/** An open backend and how to dispose of it. */
export interface TestStore {
  store: Backend;
  /** The database URL for a Postgres store (for second processes), else `undefined`. */
  url?: string;
  /** Drops the database once the store is closed (nothing for Deno KV). */
  drop(): Promise<void>;
  /** Closes the backend and drops the database. */
  close(): Promise<void>;
}

/** `true` when tests of this kind must be skipped (Postgres absent outside CI). */
export function ignoreKind(kind: StoreKind): boolean {
  return kind === "postgres" && skipWithout("postgres");
}

/** A fresh empty database on the test cluster; returns its URL and a drop function. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = serviceUrl("postgres");
  if (!admin) throw new Error("FERRY_TEST_DATABASE_URL is not set");
  const name = `ferry_${crypto.randomUUID().replaceAll("-", "")}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  await sql.unsafe(`CREATE DATABASE ${name}`);
  await sql.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const sql = postgres(admin, { max: 1, onnotice: () => {} });
      await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await sql.end();
    },
  };
}

/**
 * A test on a fresh PostgreSQL database migrated to the latest version,
 * handed its connection and a plain store over it (skipped without
 * PostgreSQL); the database is dropped after it.
 */
export function migratedPostgresTest(
  name: string,
  fn: (sql: postgres.Sql, store: PostgresStore) => Promise<void>,
): void {
  Deno.test({
    name,
    ignore: ignoreKind("postgres"),
    fn: async () => {
      const db = await freshDatabase();
      const sql = postgres(db.url, { max: 2, onnotice: () => {} });
      try {
        await migrate(sql, MIGRATIONS);
        await fn(sql, new PostgresStore(sql));
      } finally {
        await sql.end();
        await db.drop();
      }
    },
  });
}

/**
 * Opens a fresh store of `kind`; a Deno KV store in memory, or in the file
 * `kvPath` when another process must reach it too.
 */
export async function openTestStore(kind: StoreKind, kvPath = ":memory:"): Promise<TestStore> {
  if (kind === "kv") {
    const store = await openKvStore(kvPath);
    return { store, drop: () => Promise.resolve(), close: () => store.close() };
  }
  const db = await freshDatabase();
  const store = await openPostgresStore(db.url, { max: 20 });
  return {
    store,
    url: db.url,
    drop: db.drop,
    close: async () => {
      await store.close();
      await db.drop();
    },
  };
}

/** The steps of a contract suite: each gets a fresh, empty backend. */
export type ContractSteps = Record<string, (store: Backend) => Promise<void>>;

/**
 * Registers one test per store kind, `<name>: <kind>`, running every step of
 * `steps` on its own fresh store: one suite, every implementation.
 */
export function contractSuite(name: string, steps: ContractSteps): void {
  for (const kind of STORE_KINDS) {
    Deno.test({
      name: `${name}: ${kind}`,
      ignore: ignoreKind(kind),
      fn: async (t) => {
        for (const [stepName, step] of Object.entries(steps)) {
          await t.step(stepName, async () => {
            const { store, close } = await openTestStore(kind);
            try {
              await step(store);
            } finally {
              await close();
            }
          });
        }
      },
    });
  }
}

/**
 * The steps of a serving store's suite: each gets a fresh serving store over
 * an empty backend, its manual clock, and the backend beneath, through which
 * a step writes as another process would (around this one's caches).
 */
export type ServingSteps = Record<
  string,
  (store: Store, clock: ManualClock, backend: Backend) => Promise<void>
>;

/**
 * Registers one test per store kind, `<name>: <kind>`, running every step of
 * `steps` on its own serving store (`db/serving.ts`) over a fresh backend.
 */
export function servingSuite(name: string, steps: ServingSteps): void {
  for (const kind of STORE_KINDS) {
    Deno.test({
      name: `${name}: ${kind}`,
      ignore: ignoreKind(kind),
      fn: async (t) => {
        for (const [stepName, step] of Object.entries(steps)) {
          await t.step(stepName, async () => {
            const { store: backend, drop } = await openTestStore(kind);
            const clock = new ManualClock(Date.now());
            const store = servingStore(backend, clock);
            try {
              await step(store, clock, backend);
            } finally {
              await store.close();
              await drop();
            }
          });
        }
      },
    });
  }
}

let created = Date.UTC(2026, 0, 1);

/**
 * A USER named `username` with a password hash and a stored token, not yet
 * stored, each a second younger than the one before; `extra` over it.
 */
export function userRecord(username: string, extra: Partial<UserRecord> = {}): UserRecord {
  const at = new Date(created += 1000);
  return {
    id: newId(systemRandom, Date.now()),
    username,
    password: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
    role: "USER",
    avatar: null,
    token: newStoredToken(at.getTime(), systemRandom, "u"),
    totpSecret: null,
    view: { enabled: false },
    quota: null,
    createdAt: at,
    updatedAt: at,
    ...extra,
  };
}

/**
 * Stores a plain USER (no password, a random token) for contract steps that
 * need an owner; each is a second younger than the one before.
 */
export async function storedUser(
  store: { users: UserStore },
  username?: string,
): Promise<UserRecord> {
  const at = new Date(created += 1000);
  const user: UserRecord = {
    id: newId(systemRandom, Date.now()),
    username: username ?? `u${created}`,
    password: null,
    role: "USER",
    avatar: null,
    token: newId(systemRandom, Date.now()),
    totpSecret: null,
    view: {},
    quota: null,
    createdAt: at,
    updatedAt: at,
  };
  await store.users.create(user);
  return user;
}

/**
 * A complete file record of `userId` for contract steps: a fresh id and name,
 * one byte of text, each a second younger than the one before; `extra` over it.
 */
export function fileRecord(userId: string | null, extra: Partial<FileRecord> = {}): FileRecord {
  const at = new Date(created += 1000);
  return {
    id: newId(systemRandom, Date.now()),
    name: `${newId(systemRandom, Date.now())}.txt`,
    originalName: null,
    size: 1,
    type: "text/plain",
    views: 0,
    maxViews: null,
    favorite: false,
    password: null,
    anonymous: false,
    userId,
    folderId: null,
    deletesAt: null,
    pending: false,
    createdAt: at,
    updatedAt: at,
    ...extra,
  };
}

/**
 * A short URL of `userId` named `code` for contract steps: no vanity, limit
 * or password, enabled, each a second younger than the one before; `extra`
 * over it.
 */
export function urlRecord(
  userId: string | null,
  code: string,
  extra: Partial<UrlRecord> = {},
): UrlRecord {
  const at = new Date(created += 1000);
  return {
    id: newId(systemRandom, Date.now()),
    code,
    vanity: null,
    destination: "https://example.com/",
    views: 0,
    maxViews: null,
    password: null,
    enabled: true,
    userId,
    createdAt: at,
    updatedAt: at,
    ...URL_RULE_DEFAULTS,
    ...extra,
  };
}
