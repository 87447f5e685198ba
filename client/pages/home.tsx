/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard`: a greeting by name, storage and short links against the
 * quota, the eight counts Zipline's home shows (files, favourites, storage,
 * average size, views, views per file, short links, link visits), the user's
 * file types, the last uploads, the uploader, and the last 30 days' visits
 * (the server's beside them for administrators; loaded on demand).
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import {
  getMe,
  getUserStats,
  type Me,
  type RecentFile,
  recentFiles,
  type UserStats,
} from "../api/account.ts";
import type { PageConfig } from "../config.ts";
import { formatBytes, formatCount as count } from "../format.ts";
import { FileThumb } from "../components/file_thumb.tsx";
import { Uploader } from "../components/uploader.tsx";
import { HomeVisits } from "../components/visits_loader.tsx";

/** The quota lines: storage (or files) and short links against their limits, where there are some. */
function QuotaLines({ stats, quota }: { stats: UserStats; quota: Me["quota"] }) {
  const used = formatBytes(stats.storageUsed);
  const storage = quota?.filesQuota === "BY_BYTES" && quota.maxBytes
    ? `Storage: ${used} of ${quota.maxBytes}`
    : quota?.filesQuota === "BY_FILES" && quota.maxFiles !== null
    ? `Files: ${stats.filesUploaded} of ${quota.maxFiles}`
    : null;
  const urls = quota?.maxUrls != null
    ? `Short links: ${stats.urlsCreated} of ${quota.maxUrls}`
    : null;
  if (!storage && !urls) return null;
  return (
    <ul class="plain quota-lines" aria-label="Quota">
      {storage && <li>{storage}</li>}
      {urls && <li>{urls}</li>}
    </ul>
  );
}

/** The eight counts. */
function Counts({ stats }: { stats: UserStats }) {
  const rows: [string, string][] = [
    ["Files", count(stats.filesUploaded)],
    ["Favourites", count(stats.favoriteFiles)],
    ["Storage used", formatBytes(stats.storageUsed)],
    ["Average file size", formatBytes(Math.round(stats.avgStorageUsed))],
    ["File views", count(stats.views)],
    ["Views per file", count(stats.avgViews)],
    ["Short links", count(stats.urlsCreated)],
    ["Link visits", count(stats.urlViews)],
  ];
  return (
    <dl class="counts">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The user's files per MIME type, most first. */
function FileTypes({ types }: { types: Record<string, number> }) {
  const rows = Object.entries(types).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return (
    <section class="card" aria-labelledby="types-title">
      <h2 id="types-title">Your file types</h2>
      {rows.length === 0 ? <p class="muted">No files yet.</p> : (
        <div class="table-scroll">
          <table aria-labelledby="types-title">
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col" class="number">Files</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(([type, n]) => (
                <tr key={type}>
                  <td>
                    <code>{type}</code>
                  </td>
                  <td class="number">{n.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The home page. */
export function HomePage({ config }: { config: PageConfig }) {
  const [stats, setStats] = useState<UserStats | null>(null);
  const [me, setMe] = useState<Me | null>(null);
  const [recent, setRecent] = useState<RecentFile[]>([]);
  const refresh = useCallback(() => {
    getUserStats().then(setStats, () => {});
    recentFiles(8).then(setRecent, () => {});
  }, []);
  useEffect(() => {
    refresh();
    getMe().then(setMe, () => {});
  }, [refresh]);
  return (
    <>
      <h1>Dashboard</h1>
      {me && <p class="greeting">Welcome back, {me.username}.</p>}
      {stats && (
        <section class="card summary" aria-label="Summary">
          <QuotaLines stats={stats} quota={me?.quota ?? null} />
          <Counts stats={stats} />
        </section>
      )}
      <Uploader config={config} onStored={refresh} />
      <section aria-labelledby="recent-title">
        <h2 id="recent-title">Recent uploads</h2>
        {recent.length === 0 ? <p class="muted">Nothing uploaded yet.</p> : (
          <ul class="file-grid">
            {recent.map((file) => (
              <li key={file.id} class="file-card">
                <a href={file.url} target="_blank" rel="noopener" title={file.name}>
                  <FileThumb file={file} />
                  <span class="file-name">{file.name}</span>
                </a>
              </li>
            ))}
          </ul>
        )}
        <p>
          <a href="/dashboard/files">All files</a>
        </p>
      </section>
      <HomeVisits server={config.user !== undefined && config.user.role !== "USER"} />
      {stats && <FileTypes types={stats.sortTypeCount} />}
    </>
  );
}
