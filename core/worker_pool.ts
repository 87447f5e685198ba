/**
 * A small pool of Web Workers with a queue, for work too heavy for the
 * server's one thread (image decoding and encoding, `files/image_pool.ts`):
 * while a worker computes, the event loop keeps answering requests.
 *
 * Each task has a **weight**, the share of the pool's memory budget it may
 * take (0 to 1, from its pixel count): tasks start in the order they came
 * when a worker is free and their weights together stay within 1, so the
 * memory of everything running at once stays within one budget, however many
 * requests ask. A task runs one or more **steps**, each one message to a
 * worker and its answer. A worker whose steps' weights add up to
 * {@link PoolOptions.recycleWeight} ends after the step that reached it (a
 * WebAssembly memory never shrinks, a module instantiated per job leaves its
 * memory for a garbage collection that may not come soon, and a worker's heap
 * goes back to the system only when it ends), and so does a worker whose step
 * failed; other workers wait for the next step and end after
 * {@link PoolOptions.idleMs} without one. A step that takes longer than
 * {@link PoolOptions.timeoutMs}, or whose worker dies, ends that worker and
 * fails the task. Past
 * {@link PoolOptions.maxQueue} waiting tasks, another is refused at once
 * ({@link PoolBusyError}).
 *
 * The worker side is {@link serveJobs}: one message at a time, answered with
 * the handler's value (its listed buffers transferred, not copied) or its
 * error's message.
 */
import v8 from "node:v8";
import vm from "node:vm";

/** How a pool runs its workers. */
export interface PoolOptions {
  /** The worker's module. */
  url: URL;
  /** The workers' name (`self.name` inside them). */
  name: string;
  /** Workers at once, so tasks at once. */
  size: number;
  /** Tasks that may wait; one more is refused. */
  maxQueue: number;
  /** How long one step may take before its worker is ended. */
  timeoutMs: number;
  /** A worker ends once the steps it answered weigh this much together. */
  recycleWeight: number;
  /** How long a worker waits for another step before it ends. */
  idleMs: number;
}

/** Runs one step of a task on a worker: posts `message` (moving `transfer`), resolves with the answer. */
export type Step = (message: unknown, transfer?: Transferable[]) => Promise<unknown>;

/** A step that failed: the handler threw (`message` is its error's), the worker died or timed out. */
export class WorkerJobError extends Error {
  constructor(message: string, readonly handled: boolean) {
    super(message);
    this.name = "WorkerJobError";
  }
}

/** The pool's queue is full: the task was not started. */
export class PoolBusyError extends Error {
  constructor() {
    super("the worker pool is busy");
    this.name = "PoolBusyError";
  }
}

/** What a worker answers. */
type Answer = { ok: true; value: unknown } | { ok: false; message: string };

/** What the pool counts, for tests and benchmarks. */
export interface PoolStats {
  /** Workers alive now. */
  workers: number;
  /** Tasks running. */
  running: number;
  /** Tasks waiting. */
  queued: number;
  /** Workers started since the pool was made. */
  started: number;
  /** Workers ended since the pool was made. */
  ended: number;
  /** Tasks started since the pool was made. */
  tasks: number;
}

interface Waiting {
  weight: number;
  start: () => void;
}

/** See the module's comment. */
export class WorkerPool {
  #idle: { worker: Worker; timer: ReturnType<typeof setTimeout> }[] = [];
  #busy = new Set<Worker>();
  /** The weight of the steps each live worker has answered. */
  #wear = new Map<Worker, number>();
  #queue: Waiting[] = [];
  #running = 0;
  #weight = 0;
  #started = 0;
  #ended = 0;
  #tasks = 0;
  /** Set by {@link close} until the next run: a worker finishing its step then ends. */
  #closing = false;

  constructor(readonly options: PoolOptions) {}

  /**
   * Runs `task` once its `weight` (0 to 1; more counts as 1) fits; resolves
   * or rejects as the task does. Rejects with {@link PoolBusyError} at once
   * when the queue is full.
   */
  async run<T>(weight: number, task: (step: Step) => Promise<T>): Promise<T> {
    const w = Math.min(1, Math.max(0, weight));
    this.#closing = false;
    await this.#admit(w);
    try {
      return await task((message, transfer) => this.#step(w, message, transfer));
    } finally {
      this.#running--;
      this.#weight -= w;
      this.#next();
    }
  }

  /** Counts of workers and tasks. */
  stats(): PoolStats {
    return {
      workers: this.#idle.length + this.#busy.size,
      running: this.#running,
      queued: this.#queue.length,
      started: this.#started,
      ended: this.#ended,
      tasks: this.#tasks,
    };
  }

  /**
   * Ends the idle workers now; running steps finish and their workers end
   * when they do, unless a new run comes first (the pool stays usable).
   */
  close(): void {
    this.#closing = true;
    for (const { worker, timer } of this.#idle.splice(0)) {
      clearTimeout(timer);
      this.#end(worker);
    }
  }

  #fits(weight: number): boolean {
    if (this.#running === 0) return true;
    return this.#running < this.options.size && this.#weight + weight <= 1;
  }

  #admit(weight: number): Promise<void> {
    if (this.#queue.length === 0 && this.#fits(weight)) {
      this.#take(weight);
      return Promise.resolve();
    }
    if (this.#queue.length >= this.options.maxQueue) return Promise.reject(new PoolBusyError());
    return new Promise((start) => this.#queue.push({ weight, start }));
  }

  #take(weight: number) {
    this.#tasks++;
    this.#running++;
    this.#weight += weight;
  }

  /** Starts the waiting tasks that fit now, first come first served. */
  #next() {
    while (this.#queue.length > 0 && this.#fits(this.#queue[0].weight)) {
      const task = this.#queue.shift()!;
      this.#take(task.weight);
      task.start();
    }
  }

  async #step(weight: number, message: unknown, transfer: Transferable[] = []): Promise<unknown> {
    const worker = this.#worker();
    this.#busy.add(worker);
    let answered = false;
    try {
      const answer = await this.#ask(worker, message, transfer);
      if (!answer.ok) throw new WorkerJobError(answer.message, true);
      answered = true;
      return answer.value;
    } finally {
      // A failed step's worker ends too: a WebAssembly module that aborted is not used again.
      this.#busy.delete(worker);
      const wear = (this.#wear.get(worker) ?? 0) + weight;
      if (answered && wear < this.options.recycleWeight && !this.#closing) {
        this.#wear.set(worker, wear);
        this.#rest(worker);
      } else this.#end(worker);
    }
  }

  /** An idle worker, else a new one. */
  #worker(): Worker {
    const idle = this.#idle.pop();
    if (idle) {
      clearTimeout(idle.timer);
      return idle.worker;
    }
    this.#started++;
    return new Worker(this.options.url, { type: "module", name: this.options.name });
  }

  /** Keeps `worker` for the next step, for {@link PoolOptions.idleMs}. */
  #rest(worker: Worker) {
    const timer = setTimeout(() => {
      this.#idle = this.#idle.filter((entry) => entry.worker !== worker);
      this.#end(worker);
    }, this.options.idleMs);
    Deno.unrefTimer(timer);
    this.#idle.push({ worker, timer });
  }

  #end(worker: Worker) {
    this.#wear.delete(worker);
    worker.terminate();
    this.#ended++;
  }

  /** Posts `message` and waits for the answer, an error, or the time limit. */
  #ask(worker: Worker, message: unknown, transfer: Transferable[]): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => {
        done();
        reject(new WorkerJobError(`no answer within ${this.options.timeoutMs} ms`, false));
      }, this.options.timeoutMs);
      const done = () => {
        clearTimeout(timer);
        worker.onmessage = null;
        worker.onerror = null;
        worker.onmessageerror = null;
      };
      worker.onmessage = (event: MessageEvent<Answer>) => {
        done();
        resolve(event.data);
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        done();
        reject(new WorkerJobError(event.message || "the worker failed", false));
      };
      worker.onmessageerror = () => {
        done();
        reject(new WorkerJobError("the worker's answer could not be read", false));
      };
      try {
        worker.postMessage(message, transfer);
      } catch (error) {
        done();
        reject(error);
      }
    });
  }
}

/** A worker's handler: a message in, a value out and the buffers to move with it. */
export type JobHandler = (
  message: unknown,
) => Promise<{ value: unknown; transfer?: Transferable[] }>;

/**
 * This isolate's full garbage collection, where the runtime lets a program
 * ask for one (V8's `gc`, exposed by flag to a new context), else `null`.
 */
function fullCollection(): (() => void) | null {
  try {
    v8.setFlagsFromString("--expose-gc");
    return vm.runInNewContext("gc") as () => void;
  } catch {
    return null;
  }
}

/**
 * Inside a worker: answers each message with `handler`'s value, or with its
 * error's message (the pool rejects the step with {@link WorkerJobError}).
 * After each answer the worker collects its garbage at once: a job that
 * instantiated a WebAssembly module (argon2, an image codec) left a memory of
 * its size that V8 would otherwise keep until a collection its small
 * JavaScript heap may not ask for soon (a 19 MiB argon2 memory per hash
 * piled up to 400 MiB over 25 hashes; collected after each, the peak was
 * 55 MiB). The worker's heap is small, so the collection takes a few
 * milliseconds. `collect: false` leaves the collections to V8 (a worker
 * whose jobs instantiate no WebAssembly and come often: the visits').
 */
export function serveJobs(handler: JobHandler, options: { collect?: boolean } = {}): void {
  const collect = options.collect === false ? null : fullCollection();
  const scope = self as unknown as {
    onmessage: ((event: MessageEvent) => void) | null;
    postMessage(message: Answer, transfer?: Transferable[]): void;
  };
  scope.onmessage = async (event: MessageEvent) => {
    let answer: Answer;
    let transfer: Transferable[] = [];
    try {
      const result = await handler(event.data);
      answer = { ok: true, value: result.value };
      transfer = result.transfer ?? [];
    } catch (error) {
      answer = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    scope.postMessage(answer, transfer);
    collect?.();
  };
}

/** The buffers of `arrays` to move with a message rather than copy (shared ones cannot move). */
export function transferable(...arrays: Uint8Array[]): Transferable[] {
  return arrays.map((a) => a.buffer).filter((b): b is ArrayBuffer => b instanceof ArrayBuffer);
}

/**
 * The module of a worker named like the one this code runs in or next to:
 * `file`, beside `here` (this module's URL, ending in `own`), or, when this
 * code was bundled into one file (its URL is then the bundle's), the bundle,
 * which serves as every worker (each module checks the name it was started
 * under).
 */
export function workerModule(here: string, own: string, file: string): URL {
  return here.endsWith(own) ? new URL(file, here) : new URL(here);
}

/** Whether this code runs in a worker (a bundled main.ts then only serves the worker's jobs). */
export function inWorker(): boolean {
  return (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== undefined;
}

/** Whether this code runs in a worker named `name`. */
export function inWorkerNamed(name: string): boolean {
  const scope = globalThis as { WorkerGlobalScope?: unknown; name?: unknown };
  return scope.WorkerGlobalScope !== undefined && scope.name === name;
}
