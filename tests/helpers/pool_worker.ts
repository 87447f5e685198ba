/** A worker for the worker pool's tests (tests/core/worker_pool_test.ts): each message names what to do. */
import { serveJobs } from "../../core/worker_pool.ts";

/** Tells this worker from others: a new worker, a new id. */
const id = crypto.randomUUID();

/** What a test asks a worker. */
export type PoolTestJob =
  | { do: "id" }
  | { do: "spin"; ms: number }
  | { do: "bytes"; size: number }
  | { do: "fail" }
  | { do: "crash" }
  | { do: "hang" };

serveJobs((message) => {
  const job = message as PoolTestJob;
  switch (job.do) {
    case "id":
      return Promise.resolve({ value: id });
    case "spin": {
      const end = Date.now() + job.ms;
      while (Date.now() < end) {
        // hold the worker's thread, as a decoder does
      }
      return Promise.resolve({ value: id });
    }
    case "bytes": {
      const out = new Uint8Array(job.size).fill(7);
      return Promise.resolve({ value: out, transfer: [out.buffer] });
    }
    case "fail":
      return Promise.reject(new Error("the handler failed"));
    case "crash":
      setTimeout(() => {
        throw new Error("the worker crashed");
      });
      return new Promise(() => {});
    case "hang":
      return new Promise(() => {});
  }
});
