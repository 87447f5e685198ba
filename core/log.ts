/** Logging, passed in like the clock, so tests can read what was logged. */

/** Extra fields printed after a log message. */
export type LogFields = Record<string, unknown>;

/** Where the service writes its log lines. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** The last timestamp printed, reused within the same millisecond. */
let stamp = { ms: NaN, text: "" };

function line(level: string, message: string, fields?: LogFields): string {
  const now = Date.now();
  if (now !== stamp.ms) stamp = { ms: now, text: new Date(now).toISOString() };
  let text = `${stamp.text} ${level} ${message}`;
  for (const key in fields) text += ` ${key}=${format(fields[key])}`;
  return text;
}

function format(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.stack ?? value.message);
  return typeof value === "string" && !/[\s"]/.test(value) ? value : JSON.stringify(value);
}

/** Info lines waiting for stdout. */
let waiting: string[] = [];
/** Past this many waiting lines, they are written at once. */
const MAX_WAITING = 256;
/** How long an info line may wait for the lines after it. */
const WAIT_MS = 10;
const encoder = new TextEncoder();

/** Writes the waiting info lines to stdout in one write (lost if stdout is gone). */
function flushStdout(): void {
  if (waiting.length === 0) return;
  let bytes = encoder.encode(waiting.join(""));
  waiting = [];
  try {
    while (bytes.length > 0) bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
  } catch {
    // stdout closed: nothing left to tell it
  }
}
globalThis.addEventListener("unload", flushStdout);

/**
 * Queues an info line for stdout; the lines of up to {@link WAIT_MS} are
 * written together, so that a busy server pays one write (and one timer) for
 * many requests.
 */
function toStdout(text: string): void {
  if (waiting.length === 0) setTimeout(flushStdout, WAIT_MS);
  waiting.push(`${text}\n`);
  if (waiting.length >= MAX_WAITING) flushStdout();
}

/** Writes to stderr, after the info lines logged before it. */
function toStderr(text: string): void {
  flushStdout();
  console.error(text);
}

/** Writes to the console: info to stdout, warnings and errors to stderr. */
export const consoleLogger: Logger = {
  info: (m, f) => toStdout(line("INFO", m, f)),
  warn: (m, f) => toStderr(line("WARN", m, f)),
  error: (m, f) => toStderr(line("ERROR", m, f)),
};

/** Like {@link consoleLogger}, every level on stderr: for commands whose stdout is data. */
export const stderrLogger: Logger = {
  info: (m, f) => toStderr(line("INFO", m, f)),
  warn: consoleLogger.warn,
  error: consoleLogger.error,
};

/** A logger that keeps its lines in memory; for tests. */
export class MemoryLogger implements Logger {
  readonly lines: { level: string; message: string; fields?: LogFields }[] = [];
  info(message: string, fields?: LogFields) {
    this.lines.push({ level: "info", message, fields });
  }
  warn(message: string, fields?: LogFields) {
    this.lines.push({ level: "warn", message, fields });
  }
  error(message: string, fields?: LogFields) {
    this.lines.push({ level: "error", message, fields });
  }
}

/**
 * The log of work that repeats on a timer (the webhook worker, polling each
 * second) while something it needs is down: the first failure of a run is
 * logged in full, the ones after it are only counted, and the recovery is
 * logged with that count. An outage then costs two lines, not one a second.
 */
export class RepeatedFailures {
  readonly #failing = new Map<string, number>();

  constructor(private readonly logger: Logger) {}

  /** Logs `message` with `error` unless it is already failing; counts it. */
  failed(message: string, error: unknown, fields: LogFields = {}): void {
    const count = this.#failing.get(message) ?? 0;
    this.#failing.set(message, count + 1);
    if (count === 0) this.logger.error(message, { ...fields, error });
  }

  /** Ends a run of `message`'s failures, logging how many there were. */
  succeeded(message: string, fields: LogFields = {}): void {
    const count = this.#failing.get(message);
    if (count === undefined) return;
    this.#failing.delete(message);
    this.logger.info(`${message}: recovered`, { ...fields, failures: count });
  }
}
