/// <reference lib="dom" />
/**
 * The dashboard's calls to the statistics routes (`/api/stats`), typed from
 * the server's own zod schemas (type-only imports: nothing of the server is
 * bundled).
 */
import type { z } from "zod";
import type { MetricSchema, TopFileSchema } from "../../routes/stats.ts";
import { api } from "../api.ts";

/** One metrics snapshot. */
export type Metric = z.infer<typeof MetricSchema>;
/** One of the most viewed files. */
export type TopFile = z.infer<typeof TopFileSchema>;

/** The snapshots from `from` to `to` (ms), newest first; every one when `from` is `null`. */
export function getMetrics(from: number | null, to: number): Promise<Metric[]> {
  const query = from === null
    ? "all=true"
    : new URLSearchParams({ from: new Date(from).toISOString(), to: new Date(to).toISOString() });
  return api<Metric[]>("GET", `/api/stats?${query}`);
}

/** The `take` most viewed files (administrators). */
export function topFiles(take: number): Promise<TopFile[]> {
  return api<TopFile[]>("GET", `/api/stats/files?take=${take}`);
}
