/**
 * The stores a benchmark fills before it starts its servers: each backend
 * behind the serving store (`db/serving.ts`) on the real clock, as a server
 * opens it.
 */
import { systemClock } from "../../core/clock.ts";
import { openKvStore } from "../../db/kv/mod.ts";
import { openPostgresStore } from "../../db/postgres/mod.ts";
import { servingStore } from "../../db/serving.ts";
import type { Store } from "../../db/store.ts";

/** The Deno KV store at `path`. */
export async function kvStore(path: string): Promise<Store> {
  return servingStore(await openKvStore(path), systemClock);
}

/** The PostgreSQL store at `url`. */
export async function postgresStore(url: string): Promise<Store> {
  return servingStore(await openPostgresStore(url), systemClock);
}
