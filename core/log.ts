/** Logging, passed in like the clock, so tests can read what was logged. */

/** Extra fields printed after a log message. */
export type LogFields = Record<string, unknown>;

/** Where the service writes its log lines. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

function line(level: string, message: string, fields?: LogFields): string {
  const extra = fields
    ? " " + Object.entries(fields).map(([k, v]) => `${k}=${format(v)}`).join(" ")
    : "";
  return `${new Date().toISOString()} ${level} ${message}${extra}`;
}

function format(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.stack ?? value.message);
  return typeof value === "string" && !/[\s"]/.test(value) ? value : JSON.stringify(value);
}

/** Writes to the console: info to stdout, warnings and errors to stderr. */
export const consoleLogger: Logger = {
  info: (m, f) => console.log(line("INFO", m, f)),
  warn: (m, f) => console.error(line("WARN", m, f)),
  error: (m, f) => console.error(line("ERROR", m, f)),
};

/** Like {@link consoleLogger}, every level on stderr: for commands whose stdout is data. */
export const stderrLogger: Logger = {
  info: (m, f) => console.error(line("INFO", m, f)),
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
