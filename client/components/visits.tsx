/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The visits views (issue #35 part 2): one short URL's or one file's visits
 * in a dialog (a range: a day by hour, a week or 30 days by day, or a year
 * by month; the visits and unique visitors as a chart and as totals;
 * the top referrers, countries, browsers, OSes and devices as tables), and
 * the home page's summary of the signed-in user's last 30 days (with the
 * server's beside it for administrators). Each says what to do when visits
 * are not recorded, or when there are none yet. Loaded on demand
 * (`visits_loader.tsx`): uPlot comes with the first view shown.
 */
import { useId, useMemo, useState } from "preact/hooks";
import { getVisits, type VisitsOf, type VisitsReport } from "../api/visits.ts";
import { administratorOnScreen } from "../config.ts";
import { formatCount, formatUtcDate } from "../format.ts";
import { useLoad } from "../hooks.ts";
import { PanelDialog } from "./panel_dialog.tsx";
import { type Line, TimeChart } from "./time_chart.tsx";

const DAY = 86_400_000;

/**
 * The ranges offered, named as the statistics page names its own (the
 * caption gives the dates): key, label, length and the bucket the series is
 * cut into.
 */
const RANGES = [
  ["24h", "Day", DAY, "hour"],
  ["7d", "Week", 7 * DAY, "day"],
  ["30d", "Month", 30 * DAY, "day"],
  ["12m", "Year", 365 * DAY, "month"],
] as const;
type RangeKey = typeof RANGES[number][0];

/** The query of the range `key` ending now. */
function rangeQuery(key: RangeKey) {
  const [, , length, bucket] = RANGES.find(([k]) => k === key)!;
  const to = Date.now();
  return { from: new Date(to - length).toISOString(), to: new Date(to).toISOString(), bucket };
}

/** The range's visits and unique visitors, summed over its buckets. */
function totals(report: VisitsReport): { visits: number; unique: number } {
  let visits = 0;
  let unique = 0;
  for (const point of report.series) {
    visits += point.visits;
    unique += point.unique;
  }
  return { visits, unique };
}

/** The tables of tops: the report's key, the table's title and its first column. */
const TOPS = [
  ["referrers", "Top referrers", "Referrer"],
  ["countries", "Countries", "Country"],
  ["browsers", "Browsers", "Browser"],
  ["os", "Operating systems", "OS"],
  ["devices", "Devices", "Device"],
] as const;
type TopKey = typeof TOPS[number][0];

const DEVICE_NAMES: Record<string, string> = { tv: "TV", xr: "XR headset" };

/** A country code as the reader's language names it (`GB` → `United Kingdom`). */
function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(undefined, { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** A dimension's value as a person reads it. */
function shown(key: TopKey, value: string): string {
  if (key === "countries") return countryName(value);
  if (key === "devices") return DEVICE_NAMES[value] ?? value[0].toUpperCase() + value.slice(1);
  return value;
}

/** What a table of tops says when it has no row. */
const NONE: Partial<Record<TopKey, string>> = {
  referrers: "None in this range: visits that came without a referrer (typed, bookmarked, " +
    "from an app) are not listed.",
  countries: "None in this range: countries are recorded when the server has a GeoLite2 " +
    "database (Server settings, Analytics).",
};

/** One table of tops: `rows`, most visits first, headed `title` (a heading of `level`). */
function TopTable(
  { dimension, title, column, rows, level = 3 }: {
    dimension: TopKey;
    title: string;
    column: string;
    rows: VisitsReport["top"][TopKey];
    level?: 2 | 3;
  },
) {
  const id = useId();
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <section class="card visits-top" aria-labelledby={id}>
      <Heading id={id}>{title}</Heading>
      {rows.length === 0
        ? <p class="muted small">{NONE[dimension] ?? "None in this range."}</p>
        : (
          <table aria-labelledby={id}>
            <thead>
              <tr>
                <th scope="col">{column}</th>
                <th scope="col" class="number">Visits</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.value}>
                  <td class="visits-value" title={row.value}>{shown(dimension, row.value)}</td>
                  <td class="number">{formatCount(row.visits)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
    </section>
  );
}

/** What to do when visits are not recorded: where the setting is, linked for administrators. */
function NotRecorded() {
  return (
    <>
      Visits are not recorded on this server: the “Record visits” setting is off.{" "}
      {administratorOnScreen()
        ? (
          <>
            Turn it on in <a href="/dashboard/admin/settings">Server settings</a>, under Analytics.
          </>
        )
        : "An administrator can turn it on in Server settings, under Analytics."}
    </>
  );
}

/** The state of a report worth a sentence: nothing recorded, none in the range, or recording off. */
function ReportNote({ report, what }: { report: VisitsReport; what: string }) {
  const { visits } = totals(report);
  if (!report.recording) {
    return (
      <p class="card empty-range visits-note" role="status">
        <NotRecorded />
        {visits > 0 && " These are the visits recorded before."}
      </p>
    );
  }
  if (visits > 0) return null;
  return (
    <p class="card empty-range visits-note" role="status">
      No visits of {what}{" "}
      in this range yet. Share its link: visits show here a few seconds after they happen (bots, and
      browsers that ask not to be tracked, may not be counted).
    </p>
  );
}

/** The totals of a report: visits and unique visitors. */
function Totals({ report, label }: { report: VisitsReport; label: string }) {
  const { visits, unique } = totals(report);
  return (
    <dl class="counts" aria-label={label}>
      <div>
        <dt>Visits</dt>
        <dd>{formatCount(visits)}</dd>
      </div>
      <div>
        <dt>Unique visitors</dt>
        <dd>{formatCount(unique)}</dd>
      </div>
    </dl>
  );
}

/** The chart of a report's visits and unique visitors per bucket. */
function VisitsChart({ report, title }: { report: VisitsReport; title: string }) {
  const chart = useMemo(() => {
    const times = report.series.map((p) => Date.parse(p.t));
    const lines: Line[] = [
      { label: "Visits", values: report.series.map((p) => p.visits) },
      { label: "Unique visitors", values: report.series.map((p) => p.unique) },
    ];
    const span = [Date.parse(report.from), Date.parse(report.to)] as const;
    return { times, lines, span };
  }, [report]);
  return (
    <TimeChart
      title={title}
      times={chart.times}
      lines={chart.lines}
      span={chart.span}
      format={formatCount}
    />
  );
}

const PER = { hour: "hour", day: "day", month: "month" } as const;

/**
 * The range a report covers, as its UTC buckets are: days from the first to
 * the last (`Nov 20, 2026 – Nov 27, 2026 UTC`), hours with their times.
 */
function rangeCaption(report: VisitsReport): string {
  const hourly = report.bucket === "hour";
  const last = hourly ? report.to : new Date(Date.parse(report.to) - 1).toISOString();
  return `${formatUtcDate(report.from, hourly)} – ${formatUtcDate(last, hourly)} UTC, ` +
    `by ${PER[report.bucket]}`;
}

/** One link's or file's visits over a range the reader picks. */
function VisitsView({ of, what }: { of: VisitsOf; what: string }) {
  const [range, setRange] = useState<RangeKey>("7d");
  const [answer, , error] = useLoad(
    () => getVisits(of, rangeQuery(range)).then((report) => ({ range, report })),
    [range],
  );
  // The previous range's report stays in `answer` until this one's arrives.
  const loaded = answer?.range === range ? answer.report : null;
  return (
    <div class="visits-body">
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
        {loaded && <span class="muted small">{rangeCaption(loaded)}</span>}
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {!loaded && !error && <p class="muted">Loading…</p>}
      {loaded && (
        <>
          <ReportNote report={loaded} what={what} />
          <Totals report={loaded} label="Visits in this range" />
          <p class="muted small">
            A visitor counts once{" "}
            {loaded.bucket === "hour" ? "an hour" : "a day"}: one who comes back{" "}
            {loaded.bucket === "hour" ? "in another hour" : "another day"} counts again.
          </p>
          <VisitsChart report={loaded} title={`Visits by ${PER[loaded.bucket]}`} />
          <div class="visits-tops">
            {TOPS.map(([key, title, column]) => (
              <TopTable
                key={key}
                dimension={key}
                title={title}
                column={column}
                rows={loaded.top[key]}
              />
            ))}
          </div>
        </>
      )}
    </div>
  );
}

/** What the visits dialog is of: a short URL or a file, and its name. */
export interface VisitsDialogProps {
  of: { kind: "url" | "file"; id: string };
  name: string;
  onClose: () => void;
}

/** The dialog of one short URL's or file's visits. */
export function VisitsDialog({ of, name, onClose }: VisitsDialogProps) {
  return (
    <PanelDialog
      id="visits-title"
      class="visits-dialog"
      title={`Visits of ${name}`}
      onClose={onClose}
    >
      <VisitsView of={of} what={of.kind === "url" ? "this link" : "this file"} />
    </PanelDialog>
  );
}

/** One summary card of the home page: a report's totals, its chart and its top referrers. */
function SummaryCard({ report, title }: { report: VisitsReport; title: string }) {
  const id = useId();
  const empty = totals(report).visits === 0;
  return (
    <section class="card visits-summary" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <Totals report={report} label={title} />
      {empty ? <p class="muted">No visits in the last 30 days.</p> : (
        <>
          <VisitsChart report={report} title="Visits by day" />
          <TopTable
            dimension="referrers"
            title="Top referrers"
            column="Referrer"
            rows={report.top.referrers.slice(0, 5)}
          />
        </>
      )}
    </section>
  );
}

/**
 * The home page's visits: the signed-in user's last 30 days (and, with
 * `server`, for administrators, the server's beside them); when nothing is
 * recorded, where an administrator turns it on, and nothing for others.
 */
export function HomeVisits({ server }: { server: boolean }) {
  const [reports, , error] = useLoad(() => {
    const range = rangeQuery("30d");
    return Promise.all([
      getVisits({ kind: "mine" }, range),
      server ? getVisits({ kind: "server" }, range) : Promise.resolve(null),
    ]);
  });
  if (error) return <p class="error" role="alert">{error}</p>;
  if (!reports) return null;
  const [mine, all] = reports;
  const nothing = totals(mine).visits === 0 && (!all || totals(all).visits === 0);
  if (!mine.recording && nothing) {
    // Only an administrator can change that: others are not told on every visit of home.
    if (!server) return null;
    return (
      <section class="card" aria-labelledby="home-visits-title">
        <h2 id="home-visits-title">Visits</h2>
        <p class="muted">
          <NotRecorded />
        </p>
      </section>
    );
  }
  return (
    <div class="chart-grid visits-home">
      <SummaryCard report={mine} title="Your visits, last 30 days" />
      {all && <SummaryCard report={all} title="Server visits, last 30 days" />}
      {nothing && (
        <p class="muted visits-hint">
          Visits of your short URLs and files show here. Each link's and file's own are under
          “Visits” on the URLs page and in a file's panel.
        </p>
      )}
    </div>
  );
}
