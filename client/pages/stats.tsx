/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/stats`: the instance's metrics from `GET /api/stats` over a day,
 * a week, a month, a year, all time or the dates chosen: the latest totals,
 * each with its change against the period of the same length just before;
 * files, storage, URLs and views as line charts; files by type as a donut
 * (SVG, with its legend as a table) and (with
 * `featuresMetricsShowUserSpecific`) storage and uploads by user as bars; the
 * most viewed files for administrators, and every number as a table too.
 */
import { useMemo, useState } from "preact/hooks";
import { getMetrics, type Metric, topFiles } from "../api/stats.ts";
import type { PageConfig } from "../config.ts";
import { formatBytes, formatDate } from "../format.ts";
import { useLoad } from "../hooks.ts";
import { type Line, type Span, TimeChart } from "../components/time_chart.tsx";
import { DonutChart } from "../components/donut_chart.tsx";
import {
  ask,
  askDates,
  type Asked,
  change,
  dayInput,
  type Period,
  previousOf,
  RANGES,
} from "../stats_range.ts";

/** The totals of a snapshot (`GET /api/stats` fills the lists of the newest only). */
type Totals = Omit<Metric["data"], "filesUsers" | "urlsUsers" | "types">;

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

/**
 * The span the charts' time axis covers: the range asked for; for all time,
 * from the first snapshot (a day before it when there is only one) to now.
 */
function spanOf(asked: Asked, times: number[]): Span {
  if (asked.from !== null) return [asked.from, asked.to];
  const first = Math.min(...times, asked.to);
  return [Math.min(first, asked.to - 86_400_000), asked.to];
}

/** `n` with its unit, singular or plural (`1 file`, `3 files`). */
function counted(one: string, many: string) {
  return (n: number) => `${Math.round(n).toLocaleString()} ${Math.round(n) === 1 ? one : many}`;
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

/** The charts: title, lines (label and total) and how a value is written with its unit. */
const CHARTS: {
  title: string;
  lines: [string, keyof Totals][];
  format: (n: number) => string;
  count: boolean;
}[] = [
  { title: "Files", lines: [["Files", "files"]], format: counted("file", "files"), count: true },
  { title: "Storage", lines: [["Storage", "storage"]], format: formatBytes, count: false },
  { title: "URLs", lines: [["URLs", "urls"]], format: counted("URL", "URLs"), count: true },
  {
    title: "Views",
    lines: [["File views", "fileViews"], ["URL views", "urlViews"]],
    format: counted("view", "views"),
    count: true,
  },
];

function Charts({ points, asked }: { points: Stats["points"]; asked: Asked }) {
  const series = useMemo(() => {
    const ordered = [...points].reverse();
    const times = ordered.map((p) => Date.parse(p.createdAt));
    const lines = CHARTS.map((chart): Line[] =>
      chart.lines.map(([label, key]) => ({ label, values: ordered.map((p) => p[key]) }))
    );
    return { times, lines, span: spanOf(asked, times) };
  }, [points, asked]);
  return (
    <div class="chart-grid">
      {CHARTS.map((chart, i) => (
        <TimeChart
          key={chart.title}
          title={chart.title}
          times={series.times}
          span={series.span}
          lines={series.lines[i]}
          format={chart.format}
          count={chart.count}
        />
      ))}
    </div>
  );
}

/** The most viewed files (administrators only: it names other users' files). */
function TopFiles() {
  const [files, , error] = useLoad(() => topFiles(10));
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

/** The headline numbers: what each is called, its value in a snapshot, and how it is written. */
const HEADLINES: [string, keyof Totals, (n: number) => string][] = [
  ["Files", "files", (n) => n.toLocaleString()],
  ["Storage", "storage", formatBytes],
  ["URLs", "urls", (n) => n.toLocaleString()],
  ["File views", "fileViews", (n) => n.toLocaleString()],
  ["URL views", "urlViews", (n) => n.toLocaleString()],
  ["Users", "users", (n) => n.toLocaleString()],
];

/**
 * The latest totals, each with its change since the end of `period` (the
 * period of the same length before the range: its newest snapshot), when
 * there is one.
 */
function Headline(
  { latest, earlier, period }: {
    latest: Totals;
    earlier: Totals | null;
    period: Period | null;
  },
) {
  return (
    <dl class="counts headline" aria-label="Latest totals">
      {HEADLINES.map(([label, key, format]) => {
        const moved = earlier && change(earlier[key], latest[key]);
        return (
          <div key={key}>
            <dt>{label}</dt>
            <dd>{format(latest[key])}</dd>
            {moved && period && (
              <dd class={`change ${moved.trend}`}>
                <span aria-hidden="true">
                  {moved.trend === "up" ? "▲ " : moved.trend === "down" ? "▼ " : ""}
                </span>
                {moved.text}
                <span class="visually-hidden">
                  {` from ${format(earlier[key])} at the end of ${period.name}`}
                </span>
                <span class="change-since" aria-hidden="true">vs {period.name}</span>
              </dd>
            )}
          </div>
        );
      })}
    </dl>
  );
}

/** The presets and two date inputs for a range of days of one's own. */
function RangePicker({ asked, onAsk }: { asked: Asked; onAsk: (asked: Asked) => void }) {
  const [from, setFrom] = useState(asked.from === null ? "" : dayInput(asked.from));
  const [to, setTo] = useState(dayInput(asked.to));
  const [problem, setProblem] = useState<string | null>(null);
  const preset = (range: typeof RANGES[number][0]) => {
    const next = ask(range);
    setFrom(next.from === null ? "" : dayInput(next.from));
    setTo(dayInput(next.to));
    setProblem(null);
    onAsk(next);
  };
  const dates = (first: string, last: string) => {
    setFrom(first);
    setTo(last);
    const next = askDates(first, last);
    if (typeof next === "string") setProblem(next);
    else {
      setProblem(null);
      onAsk(next);
    }
  };
  const today = dayInput(Date.now());
  return (
    <div class="range-picker">
      <div class="segmented" role="group" aria-label="Range">
        {RANGES.map(([key, label]) => (
          <button
            key={key}
            type="button"
            aria-pressed={asked.range === key}
            onClick={() => preset(key)}
          >
            {label}
          </button>
        ))}
      </div>
      <div class="range-dates" role="group" aria-label="Custom range">
        <label class="field">
          <span>From</span>
          <input
            type="date"
            value={from}
            max={to || today}
            onChange={(e) => dates(e.currentTarget.value, to)}
          />
        </label>
        <label class="field">
          <span>To</span>
          <input
            type="date"
            value={to}
            min={from || undefined}
            max={today}
            onChange={(e) => dates(from, e.currentTarget.value)}
          />
        </label>
      </div>
      {problem && <p class="error" role="alert">{problem}</p>}
    </div>
  );
}

/** What the page shows of `asked`: its snapshots, and the newest of the period before it. */
async function load(asked: Asked) {
  const period = previousOf(asked);
  const [metrics, before] = await Promise.all([
    getMetrics(asked.from, asked.to),
    period ? getMetrics(period.from, period.to) : Promise.resolve([]),
  ]);
  return { asked, period, metrics, earlier: before[0]?.data ?? null };
}

/** The statistics page. */
export function StatsPage({ config }: { config: PageConfig }) {
  const [asking, setAsking] = useState<Asked>(() => ask("week"));
  const [loaded, , error] = useLoad(() => load(asking), [asking]);
  const stats = useMemo(() => loaded && statsOf(loaded.metrics), [loaded]);
  const asked = loaded?.asked ?? asking;
  const latest = stats?.latest?.data;
  const users = (latest?.filesUsers ?? []).map((u) => ({ ...u, label: u.username ?? "(deleted)" }));
  return (
    <>
      <h1>Statistics</h1>
      <div class="toolbar">
        <RangePicker asked={asking} onAsk={setAsking} />
        {stats?.latest && (
          <span class="muted">Last recorded {formatDate(stats.latest.createdAt)}</span>
        )}
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {stats && stats.points.length === 0 && (
        <p class="card empty-range" role="status">
          {asked.from === null
            ? "No metrics have been recorded yet. The server records them as often as " +
              "“Record metrics every” says (Server settings, Task intervals)."
            : `No metrics were recorded between ${
              formatDate(new Date(asked.from).toISOString())
            } ` +
              `and ${formatDate(new Date(asked.to).toISOString())}. Choose a longer range.`}
        </p>
      )}
      {latest && loaded && (
        <Headline latest={latest} earlier={loaded.earlier} period={loaded.period} />
      )}
      {stats && stats.points.length > 0 && <Charts points={stats.points} asked={asked} />}
      {latest && (
        <div class="chart-grid">
          <section class="card" aria-labelledby="types-title">
            <h2 id="types-title">Files by type</h2>
            {latest.types.length === 0 ? <p class="muted">No files yet.</p> : (
              <DonutChart
                title="Files by type"
                name="Type"
                column="Files"
                slices={latest.types.map((t) => ({ label: t.type, value: t.sum }))}
                unit={counted("file", "files")}
              />
            )}
          </section>
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
