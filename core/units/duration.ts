/**
 * The one parser of duration strings (`30m`, `1h`, `7d`, `1 day`, `500ms`),
 * used by the settings (expirations, task intervals) and upload headers. The
 * grammar is the `ms` npm package's, which Zipline uses: a bare number is
 * milliseconds, a year is 365.25 days.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const UNITS: [RegExp, number][] = [
  [/^(?:milliseconds?|msecs?|ms)$/, 1],
  [/^(?:seconds?|secs?|s)$/, SECOND],
  [/^(?:minutes?|mins?|m)$/, MINUTE],
  [/^(?:hours?|hrs?|h)$/, HOUR],
  [/^(?:days?|d)$/, DAY],
  [/^(?:weeks?|w)$/, 7 * DAY],
  [/^(?:years?|yrs?|y)$/, 365.25 * DAY],
];

const PATTERN = /^(-?(?:\d+)?\.?\d+) *([a-z]+)?$/i;

/**
 * The milliseconds a duration string means; `null` when it is not a duration.
 * The sign is kept: callers check the range.
 */
export function parseDuration(input: string): number | null {
  if (input.length > 100) return null;
  const match = PATTERN.exec(input.trim());
  if (!match) return null;
  const unit = (match[2] ?? "ms").toLowerCase();
  const factor = UNITS.find(([names]) => names.test(unit))?.[1];
  return factor === undefined ? null : parseFloat(match[1]) * factor;
}

/**
 * The time an expiry option names, from `now` (milliseconds): a duration
 * (`1d`), `date=<a date>`, or `never` (`null`); `NaN` when it names none.
 * The upload and shorten headers' `deletes-at` grammar, as Zipline reads it.
 */
export function expiryTime(input: string, now: number): number | null {
  if (input.toLowerCase() === "never") return null;
  const date = /^date=(.+)$/i.exec(input)?.[1];
  return date !== undefined ? Date.parse(date.trim()) : now + (parseDuration(input) ?? NaN);
}
