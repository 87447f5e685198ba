/** Export/import test helpers: the reference fixtures, generated documents, requests. */
import { newId } from "../../core/clock.ts";
import { newStoredToken } from "../../core/tokens.ts";
import type { UserRecord, UserStore } from "../../db/users.ts";
import assert from "node:assert/strict";
import { startTestApp, type TestApp } from "./app.ts";
import type { StoreKind } from "./stores.ts";
import { actor } from "./users.ts";
import { COUNT_KEYS } from "../../core/transfer/v4.ts";

/** Adds a SUPERADMIN `admin` without a password straight to `store` (no services needed). */
export async function addSuperadmin(store: { users: UserStore }): Promise<UserRecord> {
  const random = { bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) };
  const now = new Date();
  const id = newId(random, Date.now());
  const user: UserRecord = {
    id,
    username: "admin",
    password: null,
    role: "SUPERADMIN",
    avatar: null,
    token: newStoredToken(now.getTime(), random, id),
    totpSecret: null,
    view: {},
    quota: null,
    createdAt: now,
    updatedAt: now,
  };
  await store.users.create(user);
  return user;
}

/** The text of a sample Zipline export in `tests/fixtures/`. */
export async function fixture(name: "v3" | "v4"): Promise<string> {
  const url = new URL(
    `../fixtures/zipline-${name}-export.sample.json`,
    import.meta.url,
  );
  return await Deno.readTextFile(url);
}

/** The v4 fixture, parsed. */
// deno-lint-ignore no-explicit-any
export async function fixtureV4(): Promise<any> {
  return JSON.parse(await fixture("v4"));
}

/** Posts `body` (text or a value) to `/api/server/import/<version>`. */
export async function importDoc(
  app: TestApp,
  version: "v3" | "v4",
  body: unknown,
  headers: Record<string, string>,
) {
  return await app.json("POST", `/api/server/import/${version}`, body, headers);
}

/** The counts the v4 import answers, as a list in the spec's order. */
export function counts(imported: Record<string, number>): number[] {
  return COUNT_KEYS.map((k) => imported[k]);
}

/** The size of a generated v4 document. */
export interface GeneratedSize {
  users: number;
  files: number;
  urls: number;
  /** Make the last file invalid (`size` a string). */
  corruptLast?: boolean;
}

/** The id of generated user `i`. */
export const generatedUserId = (i: number) => `cgenuser${String(i).padStart(17, "0")}`;

/**
 * Writes a v4 document of `size` to `path`, record by record, so that
 * benchmarks can make one far larger than memory should hold.
 */
export async function writeGeneratedV4(path: string, size: GeneratedSize): Promise<void> {
  const v4 = await fixtureV4();
  const hash = v4.data.users[0].password;
  const date = "2025-01-05T09:00:00.000Z";
  using file = await Deno.open(path, { create: true, write: true, truncate: true });
  const writer = file.writable.getWriter();
  const encoder = new TextEncoder();
  let buffer = "";
  const put = async (text: string) => {
    buffer += text;
    if (buffer.length > 1 << 20) {
      await writer.write(encoder.encode(buffer));
      buffer = "";
    }
  };
  await put(JSON.stringify({ versions: v4.versions, request: v4.request }).slice(0, -1));
  await put(`,"data":{"settings":{}`);
  const list = async (key: string, n: number, record: (i: number) => unknown) => {
    await put(`,"${key}":[`);
    for (let i = 0; i < n; i++) await put((i ? "," : "") + JSON.stringify(record(i)));
    await put("]");
  };
  await list("users", size.users, (i) => ({
    id: generatedUserId(i),
    createdAt: date,
    username: `user${i}`,
    password: hash,
    avatar: null,
    role: i === 0 ? "SUPERADMIN" : "USER",
    view: { enabled: true, embedColor: "#5865f2" },
    totpSecret: null,
  }));
  for (const key of ["userPasskeys", "userQuotas", "userOauthProviders", "userTags", "invites"]) {
    await list(key, 0, () => null);
  }
  await list("folders", 0, () => null);
  await list("urls", size.urls, (i) => ({
    id: `cgenurl${i}`,
    createdAt: date,
    code: `g${i.toString(36)}`,
    vanity: null,
    destination: `https://example.com/${i}`,
    views: i % 7,
    maxViews: null,
    password: null,
    enabled: true,
    userId: generatedUserId(i % size.users),
  }));
  await list("files", size.files, (i) => ({
    id: `cgenfile${i}`,
    createdAt: date,
    deletesAt: null,
    name: `gen-${i}.png`,
    originalName: `picture ${i}.png`,
    size: size.corruptLast && i === size.files - 1 ? "12" : 1000 + i,
    type: "image/png",
    views: i % 5,
    maxViews: null,
    favorite: i % 2 === 0,
    password: null,
    userId: generatedUserId(i % size.users),
    folderId: null,
  }));
  await list("thumbnails", 0, () => null);
  await list("metrics", 0, () => null);
  await put("}}");
  await writer.write(encoder.encode(buffer));
  await writer.close();
}

/**
 * Imports the v4 `doc` into a fresh instance of `kind` as its SUPERADMIN and
 * closes it; the import's answer (its status asserted 200).
 */
// deno-lint-ignore no-explicit-any
export async function importIntoFresh(kind: StoreKind, doc: unknown): Promise<any> {
  const other = await startTestApp(kind);
  try {
    const admin = await actor(other, "SUPERADMIN", "admin");
    const res = await importDoc(other, "v4", doc, admin.headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  } finally {
    await other.close();
  }
}
