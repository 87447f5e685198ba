/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/** `/dashboard`: storage against the quota, counts, the last uploads, and the uploader. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, type ApiFile } from "../api.ts";
import type { PageConfig } from "../config.ts";
import { formatBytes } from "../format.ts";
import { FileThumb } from "../components/file_thumb.tsx";
import { Uploader } from "../components/uploader.tsx";

interface Stats {
  filesUploaded: number;
  views: number;
  storageUsed: number;
  urlsCreated: number;
  urlViews: number;
}

interface Quota {
  filesQuota: "BY_BYTES" | "BY_FILES" | "NONE";
  maxBytes: string | null;
  maxFiles: number | null;
}

/** The storage line: used, and the quota when there is one. */
function Storage({ stats, quota }: { stats: Stats; quota: Quota | null }) {
  const used = formatBytes(stats.storageUsed);
  if (quota?.filesQuota === "BY_BYTES" && quota.maxBytes) {
    return <p>Storage: {used} of {quota.maxBytes}</p>;
  }
  if (quota?.filesQuota === "BY_FILES" && quota.maxFiles !== null) {
    return <p>Storage: {used}; {stats.filesUploaded} of {quota.maxFiles} files</p>;
  }
  return <p>Storage: {used}</p>;
}

/** The home page. */
export function HomePage({ config }: { config: PageConfig }) {
  const [stats, setStats] = useState<Stats | null>(null);
  const [quota, setQuota] = useState<Quota | null>(null);
  const [recent, setRecent] = useState<ApiFile[]>([]);
  const refresh = useCallback(() => {
    api<Stats>("GET", "/api/user/stats").then(setStats, () => {});
    api<ApiFile[]>("GET", "/api/user/recent?take=8").then(setRecent, () => {});
  }, []);
  useEffect(() => {
    refresh();
    api<{ user: { quota: Quota | null } }>("GET", "/api/user").then(
      ({ user }) => setQuota(user.quota),
      () => {},
    );
  }, [refresh]);
  return (
    <>
      <h1>Dashboard</h1>
      {stats && (
        <section class="card summary" aria-label="Summary">
          <Storage stats={stats} quota={quota} />
          <dl class="counts">
            <div>
              <dt>Files</dt>
              <dd>{stats.filesUploaded}</dd>
            </div>
            <div>
              <dt>File views</dt>
              <dd>{stats.views}</dd>
            </div>
            <div>
              <dt>Short links</dt>
              <dd>{stats.urlsCreated}</dd>
            </div>
            <div>
              <dt>Link visits</dt>
              <dd>{stats.urlViews}</dd>
            </div>
          </dl>
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
    </>
  );
}
