/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/stats`: the instance's metrics from `GET /api/stats` over a day,
 * a week, a month or all time: files, storage, URLs and views as line charts,
 * files by type and (with `featuresMetricsShowUserSpecific`) storage and
 * uploads by user as bars, the most viewed files for administrators, and
 * every number as a table too.
 */
import { useMemo, useState } from "preact/hooks";
import type { PageConfig } from "../config.ts";
import { formatBytes, formatDate } from "../format.ts";
import { useApi } from "../hooks.ts";
import { type Line, TimeChart } from "../components/time_chart.tsx";

interface Totals {
  users: number;
  files: number;
  fileViews: number;
  urls: number;
  urlViews: number;
  storage: number;
}

/** One snapshot of `GET /api/stats` (newest first; only the newest has its lists filled). */
interface Metric {
  id: string;
  createdAt: string;
  data: Totals & {
    filesUsers: { username: string | null; sum: number; storage: number; views: number }[];
    types: { type: string; sum: number }[];
  };
}

/** The snapshots as the page shows them: the newest, and every one's totals. */
interface Stats {
  latest: Metric | null;
  points: (Totals & { id: string; createdAt: string })[];
}

function statsOf(metrics: Metric[]): Stats {
  return {
    latest: metrics[0] ?? null,
    points: metrics.map((m) => ({ id: m.id, createdAt: m.createdAt, ...m.data })),
  };
}

const RANGES = [
  ["day", "Day", 86_400_000],
  ["week", "Week", 7 * 86_400_000],
  ["month", "Month", 30 * 86_400_000],
  ["all", "All", 0],
] as const;
type Range = typeof RANGES[number][0];

function query(range: Range): string {
  if (range === "all") return "all=true";
  const span = RANGES.find(([r]) => r === range)![2];
  return `from=${new Date(Date.now() - span).toISOString()}`;
}

/** Bars of `rows`, longest first, each labelled with `format(value)`. */
function Bars(
  { title, rows, format = String }: {
    title: string;
    rows: { label: string; value: number }[];
    format?: (value: number) => string;
  },
) {
  const sorted = [...rows].sort((a, b) => b.value - a.value).slice(0, 10);
  const max = Math.max(1, ...sorted.map((r) => r.value));
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      {sorted.length === 0 ? <p class="muted">Nothing yet.</p> : (
        <ul class="bars plain">
          {sorted.map((r) => (
            <li key={r.label}>
              <span class="bar-label">{r.label}</span>
              <progress max={max} value={r.value} aria-label={`${r.label}: ${format(r.value)}`} />
              <span class="bar-value">{format(r.value)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Charts({ points }: { points: Stats["points"] }) {
  const series = useMemo(() => {
    const ordered = [...points].reverse();
    const times = ordered.map((p) => Date.parse(p.createdAt));
    const line = (label: string, key: keyof Totals): Line => ({
      label,
      values: ordered.map((p) => p[key]),
    });
    return {
      times,
      files: [line("Files", "files")],
      storage: [line("Storage", "storage")],
      urls: [line("URLs", "urls")],
      views: [line("File views", "fileViews"), line("URL views", "urlViews")],
    };
  }, [points]);
  return (
    <div class="chart-grid">
      <TimeChart title="Files" times={series.times} lines={series.files} />
      <TimeChart
        title="Storage"
        times={series.times}
        lines={series.storage}
        format={formatBytes}
      />
      <TimeChart title="URLs" times={series.times} lines={series.urls} />
      <TimeChart title="Views" times={series.times} lines={series.views} />
    </div>
  );
}

interface TopFile {
  id: string;
  name: string;
  size: number;
  views: number;
  username: string | null;
}

/** The most viewed files (administrators only: it names other users' files). */
function TopFiles() {
  const [files, , error] = useApi<TopFile[]>("/api/stats/files?take=10");
  return (
    <section class="card" aria-labelledby="top-files-title">
      <h2 id="top-files-title">Top files by views</h2>
      {error && <p class="error" role="alert">{error}</p>}
      {files && files.length === 0 && <p class="muted">No files yet.</p>}
      {files && files.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Top files by views">
            <thead>
              <tr>
                <th>File</th>
                <th>Owner</th>
                <th>Views</th>
                <th>Size</th>
              </tr>
            </thead>
            <tbody>
              {files.map((f) => (
                <tr key={f.id}>
                  <td>
                    <a href={`/view/${encodeURIComponent(f.name)}`}>{f.name}</a>
                  </td>
                  <td>{f.username ?? "—"}</td>
                  <td>{f.views}</td>
                  <td>{formatBytes(f.size)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function NumbersTable({ points }: { points: Stats["points"] }) {
  return (
    <details class="card">
      <summary>The numbers as a table</summary>
      <div class="table-scroll">
        <table aria-label="Metrics">
          <thead>
            <tr>
              <th>When</th>
              <th>Files</th>
              <th>Storage</th>
              <th>URLs</th>
              <th>File views</th>
              <th>URL views</th>
              <th>Users</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.id}>
                <td>{formatDate(p.createdAt)}</td>
                <td>{p.files}</td>
                <td>{formatBytes(p.storage)}</td>
                <td>{p.urls}</td>
                <td>{p.fileViews}</td>
                <td>{p.urlViews}</td>
                <td>{p.users}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/** The statistics page. */
export function StatsPage({ config }: { config: PageConfig }) {
  const [range, setRange] = useState<Range>("week");
  const path = useMemo(() => `/api/stats?${query(range)}`, [range]);
  const [metrics, , error] = useApi<Metric[]>(path);
  const stats = useMemo(() => metrics && statsOf(metrics), [metrics]);
  const latest = stats?.latest?.data;
  const users = (latest?.filesUsers ?? []).map((u) => ({ ...u, label: u.username ?? "(deleted)" }));
  return (
    <>
      <h1>Statistics</h1>
      <div class="toolbar">
        <div class="segmented" role="group" aria-label="Range">
          {RANGES.map(([key, label]) => (
            <button
              key={key}
              type="button"
              aria-pressed={range === key}
              onClick={() => setRange(key)}
            >
              {label}
            </button>
          ))}
        </div>
        {stats?.latest && (
          <span class="muted">Last recorded {formatDate(stats.latest.createdAt)}</span>
        )}
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {stats && stats.points.length === 0 && (
        <p class="muted">No metrics recorded in this range yet.</p>
      )}
      {latest && (
        <dl class="counts" aria-label="Latest totals">
          <div>
            <dt>Files</dt>
            <dd>{latest.files}</dd>
          </div>
          <div>
            <dt>Storage</dt>
            <dd>{formatBytes(latest.storage)}</dd>
          </div>
          <div>
            <dt>URLs</dt>
            <dd>{latest.urls}</dd>
          </div>
          <div>
            <dt>Views</dt>
            <dd>{latest.fileViews + latest.urlViews}</dd>
          </div>
          <div>
            <dt>Users</dt>
            <dd>{latest.users}</dd>
          </div>
        </dl>
      )}
      {stats && stats.points.length > 0 && <Charts points={stats.points} />}
      {latest && (
        <div class="chart-grid">
          <Bars
            title="Files by type"
            rows={latest.types.map((t) => ({ label: t.type, value: t.sum }))}
          />
          {config.metricsPerUser && (
            <Bars
              title="Storage by user"
              rows={users.map((u) => ({ label: u.label, value: u.storage }))}
              format={formatBytes}
            />
          )}
          {config.metricsPerUser && (
            <Bars
              title="Uploads by user"
              rows={users.map((u) => ({ label: u.label, value: u.sum }))}
            />
          )}
        </div>
      )}
      {config.user && config.user.role !== "USER" && <TopFiles />}
      {stats && stats.points.length > 0 && <NumbersTable points={stats.points} />}
    </>
  );
}
