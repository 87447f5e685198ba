/** How the dashboard writes sizes, durations and times for people. */

const UNITS = ["B", "KB", "MB", "GB", "TB"];

/** `1536` → `1.5 KB` (powers of 1024, one decimal below 10). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits)} ${UNITS[unit]}`;
}

/** A count as people read it: whole numbers grouped (`12,345`), others to one decimal. */
export function formatCount(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString() : value.toFixed(1);
}

/** `95` → `1 min 35 s`; for the time an upload has left. */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return "…";
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** An ISO time as the reader's locale writes a date and time. */
export function formatDate(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** An ISO time as the reader's locale writes its UTC date (and, `withTime`, its UTC time). */
export function formatUtcDate(iso: string, withTime = false): string {
  return new Date(iso).toLocaleString(undefined, {
    dateStyle: "medium",
    ...(withTime ? { timeStyle: "short" } : {}),
    timeZone: "UTC",
  });
}
