/**
 * `GET /api/stats` (reference §4.9): the metrics snapshots of a time range,
 * newest first and thinned to at most {@link MAX_POINTS}, as the list of
 * metrics Zipline v4.4's web client reads (`Metric[]`): the newest in full,
 * the rest with their totals and empty per-user and type lists, which only
 * the newest's tables show. Snapshots come from the metrics task or a
 * Zipline import, so their `data` is read field by field with zeros for gaps.
 */
import type { Role, UserRecord } from "../db/users.ts";
import type { MetricRange, MetricRecord } from "../db/metrics.ts";
import { badRequest, forbidden } from "./errors.ts";
import { isAdministrator } from "./roles.ts";
import type { Services } from "./services.ts";
import type { Settings } from "./settings/registry.ts";

/** The most points a reply carries. */
export const MAX_POINTS = 500;

const WEEK_MS = 7 * 24 * 3_600_000;

/** What the caller asked for: date strings and `all` as sent. */
export interface StatsQuery {
  from?: string;
  to?: string;
  all?: boolean;
}

/** The instance totals of one snapshot. */
export interface MetricTotals {
  users: number;
  files: number;
  fileViews: number;
  urls: number;
  urlViews: number;
  storage: number;
}

/** A snapshot's statistics in Zipline's shape. */
export interface MetricData extends MetricTotals {
  filesUsers: { username: string | null; sum: number; storage: number; views: number }[];
  urlsUsers: { username: string | null; sum: number; views: number }[];
  types: { type: string; sum: number }[];
}

/** A snapshot as the API shows it: Zipline's `Metric`. */
export interface MetricView {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  data: MetricData;
}

/**
 * Why a user of `role` may not read the metrics (`Metrics are disabled`,
 * `Admin only`), or `null` when it may; the dashboard hides its statistics
 * page by the same rule.
 */
export function statsRefusal(settings: Settings, role: Role): string | null {
  if (!settings.featuresMetricsEnabled) return "Metrics are disabled";
  if (settings.featuresMetricsAdminOnly && !isAdministrator(role)) return "Admin only";
  return null;
}

/**
 * `true` when a user of `role` sees the per-user parts of the metrics (the
 * users' names with their files, storage and views): administrators always,
 * USERs only with `featuresMetricsShowUserSpecific` (off by default), so
 * that no USER learns the other accounts' names from the statistics.
 */
export function showsPerUser(settings: Settings, role: Role): boolean {
  return isAdministrator(role) || settings.featuresMetricsShowUserSpecific;
}

/**
 * The snapshots of the caller's range: `all` for every one, else `from` (a
 * week ago by default) to `to` (now by default). Throws 403 when metrics are
 * off or for administrators only and the caller is not one, 400 on a date
 * that does not parse or a range that is backwards or starts in the future.
 */
export async function instanceStats(
  s: Services,
  caller: UserRecord,
  query: StatsQuery,
): Promise<MetricView[]> {
  const refusal = statsRefusal(s.settings.all(), caller.role);
  if (refusal) throw forbidden(refusal);
  const range = query.all ? { from: null, to: null } : timeRange(s.clock.now(), query);
  const total = await s.store.metrics.countRange(range);
  const step = Math.ceil(total / MAX_POINTS);
  const metrics: MetricRecord[] = [];
  let index = 0;
  for await (const metric of s.store.metrics.range(range)) {
    if (index++ % step === 0 && metrics.length < MAX_POINTS) metrics.push(metric);
  }
  const userSpecific = showsPerUser(s.settings.all(), caller.role);
  return metrics.map((metric, i) => ({
    id: metric.id,
    createdAt: metric.createdAt,
    updatedAt: metric.createdAt,
    data: i === 0
      ? metricData(metric.data, userSpecific)
      : { ...totals(metric.data), filesUsers: [], urlsUsers: [], types: [] },
  }));
}

function timeRange(now: number, query: StatsQuery): MetricRange {
  const from = query.from === undefined ? new Date(now - WEEK_MS) : parseDate(query.from);
  const to = query.to === undefined ? new Date(now) : parseDate(query.to);
  if (from > to) throw badRequest("From date must be before to date");
  if (from.getTime() > now) throw badRequest("From date must be in the past");
  return { from, to };
}

function parseDate(text: string): Date {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw badRequest(`Invalid date: ${text}`);
  return date;
}

function totals(d: Record<string, unknown>): MetricTotals {
  return {
    users: num(d.users),
    files: num(d.files),
    fileViews: num(d.fileViews),
    urls: num(d.urls),
    urlViews: num(d.urlViews),
    storage: num(d.storage),
  };
}

/** `data` in Zipline's shape; without `userSpecific` the per-user lists are empty. */
function metricData(data: Record<string, unknown>, userSpecific: boolean): MetricData {
  const rows = (value: unknown) => Array.isArray(value) ? value as Record<string, unknown>[] : [];
  const username = (v: unknown) => typeof v === "string" ? v : null;
  return {
    ...totals(data),
    filesUsers: userSpecific
      ? rows(data.filesUsers).map((u) => ({
        username: username(u.username),
        sum: num(u.sum),
        storage: num(u.storage),
        views: num(u.views),
      }))
      : [],
    urlsUsers: userSpecific
      ? rows(data.urlsUsers).map((u) => ({
        username: username(u.username),
        sum: num(u.sum),
        views: num(u.views),
      }))
      : [],
    types: rows(data.types).map((t) => ({ type: String(t.type ?? ""), sum: num(t.sum) })),
  };
}

/** A number from imported JSON: numeric strings (Zipline's BigInt storage) read too; else 0. */
function num(value: unknown): number {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : 0;
}

/** One of the most viewed files, for the statistics page. */
export interface TopFile {
  id: string;
  name: string;
  type: string;
  size: number;
  views: number;
  /** The owner's name; `null` without one or when the caller may not see per-user numbers. */
  username: string | null;
}

/**
 * The `take` most viewed complete files of the instance, most views first
 * (ties by name, code points), read from the store's index of them
 * (`FileStore.mostViewed`), never from a pass over every file (issue #32).
 * Administrators only, under the same rules as {@link instanceStats}.
 */
export async function topFiles(s: Services, caller: UserRecord, take: number): Promise<TopFile[]> {
  const refusal = statsRefusal(s.settings.all(), caller.role);
  if (refusal) throw forbidden(refusal);
  const perUser = showsPerUser(s.settings.all(), caller.role);
  const owners = new Map<string, string | null>();
  const top: TopFile[] = [];
  for (const f of await s.store.files.mostViewed(take)) {
    const id = f.userId;
    if (perUser && id !== null && !owners.has(id)) {
      owners.set(id, (await s.store.users.get(id))?.username ?? null);
    }
    const username = perUser && id !== null ? owners.get(id) ?? null : null;
    top.push({ id: f.id, name: f.name, type: f.type, size: f.size, views: f.views, username });
  }
  return top;
}
