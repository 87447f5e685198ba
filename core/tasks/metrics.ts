/**
 * The metrics task: a snapshot of the instance in Zipline's shape (reference
 * §10), so that `/api/stats` and exports read recorded and imported
 * snapshots alike.
 */
import { newId } from "../clock.ts";
import type { Services } from "../services.ts";

/**
 * Adds one metrics snapshot taken now; returns 1, or 0 when
 * `featuresMetricsEnabled` is off (or `signal` was aborted before the
 * snapshot was complete). The files' and URLs' figures come from each
 * owner's statistics counters (`FileStore.stats`, `UrlStore.statsByUser`,
 * the owner `null` for those without one), a read or two per user, not from a
 * pass over the files or the URLs.
 */
export async function recordMetrics(s: Services, signal?: AbortSignal): Promise<number> {
  if (!s.settings.get("featuresMetricsEnabled")) return 0;
  const users = await s.store.users.list();
  const usernames = new Map(users.map((u) => [u.id, u.username]));
  const name = (id: string | null) => (id !== null && usernames.get(id)) || "unknown";
  const fileUsers = new Map<string, { sum: number; storage: number; views: number }>();
  const urlUsers = new Map<string, { sum: number; views: number }>();
  const types = new Map<string, number>();
  let files = 0, fileViews = 0, storage = 0, urls = 0, urlViews = 0;
  for (const owner of [...users.map((u) => u.id), null]) {
    if (signal?.aborted) return 0;
    const [stats, urlStats] = await Promise.all([
      s.store.files.stats(owner),
      s.store.urls.statsByUser(owner),
    ]);
    if (stats.files > 0) {
      files += stats.files;
      fileViews += stats.views;
      storage += stats.bytes;
      const user = fileUsers.get(name(owner)) ?? { sum: 0, storage: 0, views: 0 };
      fileUsers.set(name(owner), {
        sum: user.sum + stats.files,
        storage: user.storage + stats.bytes,
        views: user.views + stats.views,
      });
      for (const [type, n] of Object.entries(stats.types)) {
        types.set(type, (types.get(type) ?? 0) + n);
      }
    }
    if (urlStats.urls > 0) {
      urls += urlStats.urls;
      urlViews += urlStats.views;
      const user = urlUsers.get(name(owner)) ?? { sum: 0, views: 0 };
      urlUsers.set(name(owner), {
        sum: user.sum + urlStats.urls,
        views: user.views + urlStats.views,
      });
    }
  }
  const now = s.clock.now();
  await s.store.metrics.add([{
    id: newId(s.random, now),
    createdAt: new Date(now),
    data: {
      users: usernames.size,
      files,
      fileViews,
      urls,
      urlViews,
      storage,
      filesUsers: [...fileUsers].map(([username, v]) => ({ username, ...v })),
      urlsUsers: [...urlUsers].map(([username, v]) => ({ username, ...v })),
      types: [...types].map(([type, sum]) => ({ type, sum })),
    },
  }]);
  return 1;
}
