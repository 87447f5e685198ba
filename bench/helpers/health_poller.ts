/**
 * A worker that asks a server's `/api/healthcheck` again and again, on a
 * thread of its own, so that what the benchmark itself does meanwhile (an
 * upload of tens of megabytes being encoded and sent) does not delay the
 * asking and inflate the times measured. Started with `{origin, intervalMs}`;
 * answers `"stop"` with `{times, failed}` (each answer's time in ms).
 */
/// <reference lib="deno.worker" />

let stopped = false;

self.onmessage = async (event: MessageEvent) => {
  if (event.data === "stop") {
    stopped = true;
    return;
  }
  const { origin, intervalMs } = event.data as { origin: string; intervalMs: number };
  const times: number[] = [];
  let failed = 0;
  while (!stopped) {
    const started = performance.now();
    try {
      const res = await fetch(`${origin}/api/healthcheck`, { signal: AbortSignal.timeout(10_000) });
      await res.body?.cancel();
      if (!res.ok) failed++;
    } catch {
      failed++;
    }
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  self.postMessage({ times, failed });
};
