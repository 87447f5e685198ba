/**
 * The metrics task: a snapshot of the instance in Zipline's shape (reference
 * §10), so that `/api/stats` and exports read recorded and imported
 * snapshots alike.
 */
import { newId } from "../clock.ts";
import type { Services } from "../services.ts";

/** Adds one metrics snapshot taken now; returns 1, or 0 when `featuresMetricsEnabled` is off. */
export async function recordMetrics(s: Services): Promise<number> {
  if (!s.settings.get("featuresMetricsEnabled")) return 0;
  const usernames = new Map((await s.store.users.list()).map((u) => [u.id, u.username]));
  const name = (id: string | null) => (id !== null && usernames.get(id)) || "unknown";
  const fileUsers = new Map<string, { sum: number; storage: number; views: number }>();
  const urlUsers = new Map<string, { sum: number; views: number }>();
  const types = new Map<string, number>();
  let files = 0, fileViews = 0, storage = 0, urls = 0, urlViews = 0;
  for await (const f of s.store.files.iterate()) {
    if (f.pending) continue;
    files++;
    fileViews += f.views;
    storage += f.size;
    const user = fileUsers.get(name(f.userId)) ?? { sum: 0, storage: 0, views: 0 };
    fileUsers.set(name(f.userId), {
      sum: user.sum + 1,
      storage: user.storage + f.size,
      views: user.views + f.views,
    });
    types.set(f.type, (types.get(f.type) ?? 0) + 1);
  }
  for await (const u of s.store.urls.iterate()) {
    urls++;
    urlViews += u.views;
    const user = urlUsers.get(name(u.userId)) ?? { sum: 0, views: 0 };
    urlUsers.set(name(u.userId), { sum: user.sum + 1, views: user.views + u.views });
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
