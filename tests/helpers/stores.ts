/**
 * Opens a fresh, empty store of each kind for a test: Deno KV in memory, and
 * PostgreSQL in a new database on the cluster the test task started.
 */
import postgres from "postgres";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import type { FileRecord } from "../../db/files.ts";
import type { Store, UserRecord } from "../../db/store.ts";
import type { UrlRecord } from "../../db/urls.ts";
import { newId, systemRandom } from "../../core/clock.ts";
import { serviceUrl, skipWithout } from "./services.ts";

/** The store kinds every store-backed suite runs on. */
export const STORE_KINDS = ["kv", "postgres"] as const;
/** A store kind. */
export type StoreKind = typeof STORE_KINDS[number];

/** An open store and how to dispose of it. */
export interface TestStore {
  store: Store;
  /** The database URL for a Postgres store (for second processes), else `undefined`. */
  url?: string;
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
 * Opens a fresh store of `kind`; a Deno KV store in memory, or in the file
 * `kvPath` when another process must reach it too.
 */
export async function openTestStore(kind: StoreKind, kvPath = ":memory:"): Promise<TestStore> {
  if (kind === "kv") {
    const store = await openKvStore(kvPath);
    return { store, close: () => store.close() };
  }
  const db = await freshDatabase();
  const store = await openPostgresStore(db.url, { max: 20 });
  return {
    store,
    url: db.url,
    close: async () => {
      await store.close();
      await db.drop();
    },
  };
}

/** The steps of a contract suite: each gets a fresh, empty store. */
export type ContractSteps = Record<string, (store: Store) => Promise<void>>;

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

let created = Date.UTC(2026, 0, 1);

/**
 * Stores a plain USER (no password, a random token) for contract steps that
 * need an owner; each is a second younger than the one before.
 */
export async function storedUser(store: Store, username?: string): Promise<UserRecord> {
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
  await store.createUser(user);
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
    ...extra,
  };
}
