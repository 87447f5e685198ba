/**
 * What a benchmark started and must stop: a stack of cleanups run newest
 * first at the end (and on Ctrl-C), and a throwaway PostgreSQL cluster with
 * an empty `ferry_bench` database. Each benchmark runs as its own process, so
 * one stack per process is enough.
 */
import postgres from "postgres";
import { startPostgres } from "../../tests/helpers/postgres_cluster.ts";
import { hasWrk } from "./wrk.ts";

/** Cleanups still to run, newest first. */
export const cleanups: (() => Promise<unknown>)[] = [];

/** Runs every pending cleanup, newest first; a failing one is reported, not fatal. */
export async function cleanUp(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!().catch((e) => console.error("cleanup:", e));
}

/**
 * Runs a load benchmark's `body` once `wrk` is known to be installed, then
 * every cleanup, also when it fails or is stopped with Ctrl-C.
 */
export async function wrkBench<T>(body: () => Promise<T>): Promise<T> {
  if (!(await hasWrk())) throw new Error("wrk is not installed: apt-get install wrk");
  const onInterrupt = () => cleanUp().finally(() => Deno.exit(130));
  Deno.addSignalListener("SIGINT", onInterrupt);
  try {
    return await body();
  } finally {
    await cleanUp();
    Deno.removeSignalListener("SIGINT", onInterrupt);
  }
}

/**
 * Starts a cluster (stopped by {@link cleanUp}) with an empty `ferry_bench`
 * database; `pid` is the postmaster's.
 */
export async function benchDatabase(): Promise<{ url: string; version: string; pid: number }> {
  const { urls: [url], ...cluster } = await benchDatabases(["ferry_bench"]);
  return { url, ...cluster };
}

/**
 * Starts a cluster (stopped by {@link cleanUp}) with an empty database of
 * each name; `urls` in their order, `pid` the postmaster's.
 */
export async function benchDatabases(
  names: string[],
): Promise<{ urls: string[]; version: string; pid: number }> {
  const cluster = await startPostgres();
  cleanups.push(() => cluster.stop());
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  const [{ server_version: version }] = await admin`SHOW server_version`;
  for (const name of names) await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const urls = names.map((name) => {
    const url = new URL(cluster.url);
    url.pathname = `/${name}`;
    return url.toString();
  });
  return { urls, version, pid: cluster.pid };
}
