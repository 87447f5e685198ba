/**
 * A soak instance with its memory on record: started in place of `main.ts`
 * (`deno run <the same flags> tests/helpers/soak/memory_probe.ts serve`), it
 * writes `Deno.memoryUsage()` to stderr once a second as one line starting
 * with {@link MEMORY_LINE} (`instance.ts` reads them), and, when
 * `SOAK_HEAP_DIR` is set, a V8 heap snapshot into that directory on SIGUSR2
 * (to open in Chrome DevTools' Memory tab); then it runs `main.ts` as usual.
 */
/** How each line of `Deno.memoryUsage()` written to stderr starts. */
export const MEMORY_LINE = "soak memory ";

if (import.meta.main) {
  const sampler = setInterval(() => {
    console.error(MEMORY_LINE + JSON.stringify(Deno.memoryUsage()));
  }, 1000);
  Deno.unrefTimer(sampler);
  const heapDir = Deno.env.get("SOAK_HEAP_DIR");
  if (heapDir) {
    // Loaded only when asked for, so that the probe adds nothing to a start-up.
    const { writeHeapSnapshot } = await import("node:v8");
    Deno.addSignalListener("SIGUSR2", () => {
      const path = writeHeapSnapshot(`${heapDir}/${Deno.pid}-${Date.now()}.heapsnapshot`);
      console.error(`heap snapshot written to ${path}`);
    });
  }
  await import("../../../main.ts");
}
