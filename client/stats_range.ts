/**
 * The time a statistics page shows: a preset range ending now (Day, Week,
 * Month, Year, All) or the days chosen in two date inputs, and the period of
 * the same length just before it, which the page's headline numbers are
 * compared with. Dates are the reader's own (a date input's local day).
 */

/** A day in ms. */
export const DAY = 86_400_000;

/** The presets: key, label, and length in ms (`0`: all time). */
export const RANGES = [
  ["day", "Day", DAY],
  ["week", "Week", 7 * DAY],
  ["month", "Month", 30 * DAY],
  ["year", "Year", 365 * DAY],
  ["all", "All", 0],
] as const;

/** A preset's key. */
export type Range = typeof RANGES[number][0];

/** The time asked for: a preset or `custom`, `from` (`null`: all time) and `to`, in ms. */
export interface Asked {
  range: Range | "custom";
  from: number | null;
  to: number;
}

/** The period a range is compared with: its bounds in ms and how a person names it. */
export interface Period {
  from: number;
  to: number;
  name: string;
}

/** The preset `range`, ending `now`. */
export function ask(range: Range, now: number = Date.now()): Asked {
  const length = RANGES.find(([r]) => r === range)![2];
  return { range, from: range === "all" ? null : now - length, to: now };
}

/** `ms` as a date input writes its day (`2026-11-27`, the reader's local date). */
export function dayInput(ms: number): string {
  const date = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
}

/** The local midnight starting the day `value` (`2026-11-27`) and the next one's, or `null`. */
function dayBounds(value: string): [number, number] | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const [year, month, day] = match.slice(1).map(Number);
  const start = new Date(year, month - 1, day);
  if (start.getMonth() !== month - 1) return null;
  return [start.getTime(), new Date(year, month - 1, day + 1).getTime()];
}

/**
 * The days `from` to `to` (date inputs' values, both included): from the
 * first one's midnight to the end of the last one, or `now` when that is
 * sooner; else why they make no range.
 */
export function askDates(from: string, to: string, now: number = Date.now()): Asked | string {
  const first = dayBounds(from);
  const last = dayBounds(to);
  if (!first || !last) return "Choose a first and a last day.";
  if (first[0] > last[0]) return "The first day is after the last.";
  if (first[0] >= now) return "The first day has not begun yet.";
  return { range: "custom", from: first[0], to: Math.min(last[1], now) };
}

/** What a person calls the period of `days` days just before. */
function before(days: number): string {
  if (days === 1) return "the day before";
  if (days === 7) return "the week before";
  if (days === 365) return "the year before";
  return `the ${days} days before`;
}

/** The period of the same length just before `asked`; none before all time. */
export function previousOf(asked: Asked): Period | null {
  if (asked.from === null) return null;
  const length = asked.to - asked.from;
  return {
    from: asked.from - length,
    to: asked.from,
    name: before(Math.max(1, Math.round(length / DAY))),
  };
}

/**
 * The change from `before` to `now` for people: `+12%`, `−3.5%`, `no change`,
 * or `new` (from nothing); `up`, `down` or `same`, to mark it.
 */
export function change(
  before: number,
  now: number,
): { text: string; trend: "up" | "down" | "same" } {
  if (now === before) return { text: "no change", trend: "same" };
  const trend = now > before ? "up" : "down";
  if (before === 0) return { text: "new", trend };
  const percent = ((now - before) / Math.abs(before)) * 100;
  const size = Math.abs(percent);
  const digits = size < 0.1
    ? "<0.1"
    : size < 10
    ? size.toFixed(1).replace(/\.0$/, "")
    : String(Math.round(size));
  return { text: `${trend === "up" ? "+" : "−"}${digits}%`, trend };
}
