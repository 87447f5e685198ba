/**
 * Runs the background tasks on the intervals of the `tasks*Interval`
 * settings, read on every tick so a change applies without a restart (`null`
 * turns a task off). Before each pass a runner takes the task's lease in the
 * store for one interval: of any number of instances sharing the store, one
 * runs each pass. A task that fails is logged; the others still run.
 * Stopping the runner aborts the pass under way: each task is given the
 * runner's `AbortSignal` and stops at its next unit of work (a page, a user,
 * a file), so a server told to stop never waits for a pass over the catalogue.
 */
import type { Services } from "../services.ts";
import type { Settings } from "../settings/registry.ts";
import { parseDuration } from "../units/duration.ts";
import {
  cleanAbandonedUploads,
  clearInvites,
  deleteExpiredFiles,
  deleteExpiredUrls,
  deleteMaxViews,
} from "./cleanup.ts";
import { recordMetrics } from "./metrics.ts";
import { recountFileStats } from "./recount.ts";
import { pruneVisits } from "./visits.ts";
import { cleanThumbnails, generateThumbnails } from "../files/thumbnails.ts";

/** One background task. */
export interface Task {
  /** Its lease name and log label (Zipline's task ids where it has one). */
  name: string;
  /** The setting that holds its interval. */
  interval: keyof Settings;
  /** One pass, which stops early once `signal` is aborted; returns how many things it handled. */
  run(s: Services, signal: AbortSignal): Promise<number>;
}

/** Every background task. */
export const TASKS: Task[] = [
  { name: "deletefiles", interval: "tasksDeleteInterval", run: deleteExpiredFiles },
  { name: "expiredurls", interval: "tasksDeleteInterval", run: deleteExpiredUrls },
  { name: "maxviews", interval: "tasksMaxViewsInterval", run: deleteMaxViews },
  { name: "clearinvites", interval: "tasksClearInvitesInterval", run: clearInvites },
  { name: "cleanuploads", interval: "tasksDeleteInterval", run: cleanAbandonedUploads },
  { name: "metrics", interval: "tasksMetricsInterval", run: recordMetrics },
  // The statistics' counters, checked against the records as often as metrics are taken.
  {
    name: "recountfiles",
    interval: "tasksMetricsInterval",
    run: (s, signal) => recountFileStats(s, undefined, signal),
  },
  {
    name: "thumbnails",
    interval: "tasksThumbnailsInterval",
    run: (s, signal) => generateThumbnails(s, false, signal),
  },
  { name: "cleanthumbnails", interval: "tasksCleanThumbnailsInterval", run: cleanThumbnails },
  // Visits past analyticsRetentionDays, their roll-up hours and old salts.
  { name: "visits", interval: "tasksDeleteInterval", run: pruneVisits },
];

/** How often a runner looks for due tasks. */
export const TICK_MS = 30_000;

/**
 * How long {@link TaskRunner.stop} waits for the pass under way: each task
 * stops at its next page once aborted, but one store call (a PostgreSQL
 * statement) runs to its end; past this the process goes on stopping, and
 * closing the store ends that call.
 */
export const STOP_WAIT_MS = 1_500;

/** One process's task runner. */
export class TaskRunner {
  private timer?: ReturnType<typeof setInterval>;
  private running?: Promise<string[]>;
  private readonly stopping = new AbortController();

  /** `holder` names this runner in the leases it takes. */
  constructor(
    private readonly s: Services,
    private readonly holder: string = crypto.randomUUID(),
    private readonly tasks: Task[] = TASKS,
  ) {}

  /** Runs every task that is on and whose lease this runner gets; returns their names. */
  runDue(): Promise<string[]> {
    this.running ??= this.pass().finally(() => this.running = undefined);
    return this.running;
  }

  private async pass(): Promise<string[]> {
    const ran: string[] = [];
    for (const task of this.tasks) {
      if (this.stopping.signal.aborted) break;
      const setting = this.s.settings.get(task.interval);
      const interval = typeof setting === "string" ? parseDuration(setting) : null;
      if (!interval) continue;
      const now = new Date(this.s.clock.now());
      const leased = await this.s.store.leases.acquire(
        `task:${task.name}`,
        this.holder,
        now,
        interval,
      );
      if (!leased) continue;
      ran.push(task.name);
      try {
        const handled = await task.run(this.s, this.stopping.signal);
        if (handled > 0) this.s.logger.info("task ran", { task: task.name, handled });
      } catch (error) {
        // A call cut short by the store's closing, once stopped, is no failure.
        if (this.stopping.signal.aborted) break;
        this.s.logger.error("task failed", { task: task.name, error });
      }
    }
    return ran;
  }

  /** Runs due tasks now and every {@link TICK_MS} until stopped. */
  start(): void {
    if (this.timer !== undefined) return;
    const tick = () =>
      this.runDue().catch((error) => this.s.logger.error("task runner failed", { error }));
    tick();
    this.timer = setInterval(tick, TICK_MS);
  }

  /**
   * Stops ticking, aborts the pass under way and waits for it to stop, at
   * most {@link STOP_WAIT_MS}.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopping.abort();
    if (this.running === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => timer = setTimeout(resolve, STOP_WAIT_MS));
    await Promise.race([this.running.catch(() => {}), waited]);
    clearTimeout(timer);
  }
}
