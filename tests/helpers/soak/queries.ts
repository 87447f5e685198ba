/**
 * What each kind of request costs PostgreSQL, read from the server's own
 * statistics: transactions per request (postgres.js runs each statement
 * outside `sql.begin` as its own transaction, so this counts statements, a
 * multi-statement transaction once) and the connections the instances hold.
 */
import type postgres from "postgres";

/** One kind's cost. */
export interface QueryCost {
  kind: string;
  requests: number;
  /** Transactions per request, the instances' background work taken out. */
  perRequest: number;
}

type Sql = ReturnType<typeof postgres>;

/** Committed and rolled-back transactions of the database so far. */
async function transactions(sql: Sql): Promise<number> {
  // The statistics are sent to the collector when a backend goes idle: wait for them.
  await sql`SELECT pg_stat_clear_snapshot()`;
  const [row] = await sql<{ n: string }[]>`
    SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`;
  return Number(row.n);
}

/**
 * Runs each kind `n` times, one request after the other, and counts the
 * transactions it added beyond the background rate measured first (rate-limit
 * renewals, leases, the webhook queue) and the measuring queries themselves.
 */
export async function measureQueries(
  sql: Sql,
  kinds: { kind: string; send: () => Promise<unknown> }[],
  n: number,
): Promise<QueryCost[]> {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1200));
  await settle();
  const idleFrom = performance.now();
  const idleStart = await transactions(sql);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await settle();
  const idleEnd = await transactions(sql);
  // Each reading is itself two transactions.
  const background = (idleEnd - idleStart - 2) / (performance.now() - idleFrom);
  const costs: QueryCost[] = [];
  for (const { kind, send } of kinds) {
    const began = performance.now();
    const before = await transactions(sql);
    for (let i = 0; i < n; i++) await send();
    await settle();
    const after = await transactions(sql);
    const extra = after - before - 2 - background * (performance.now() - began);
    costs.push({ kind, requests: n, perRequest: Math.max(0, extra / n) });
  }
  return costs;
}

/** The connections open from Ferry's instances (`application_name` ferry) to the cluster. */
export async function ferryConnections(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: string }[]>`
    SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'ferry'`;
  return Number(row.n);
}
