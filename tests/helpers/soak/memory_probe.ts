/**
 * A soak instance with its memory on record: started in place of `main.ts`
 * (`deno run <the same flags> tests/helpers/soak/memory_probe.ts serve`), it
 * writes `Deno.memoryUsage()` to stderr once a second as one line starting
 * with {@link MEMORY_LINE} (`instance.ts` reads them), and, when
 * `SOAK_HEAP_DIR` is set, a V8 heap snapshot into that directory on SIGUSR2
 * (to open in Chrome DevTools' Memory tab); and, when `SOAK_MALLINFO` is set
 * (the instance then runs with `--allow-ffi`), glibc's own counts once a second
 * as a line starting with {@link MALLOC_LINE}, kept in the instance's log
 * (`SOAK_LOG_DIR`): how much of the native memory the C allocator holds in
 * use, holds free, or has mapped for large blocks. Then it runs `main.ts` as
 * usual.
 */
/** How each line of `Deno.memoryUsage()` written to stderr starts. */
export const MEMORY_LINE = "soak memory ";
/** How each line of glibc's counts (`mallinfo2`) starts. */
export const MALLOC_LINE = "soak malloc ";

/** glibc's allocator counts in bytes, read through `mallinfo2` (its struct: ten `size_t`). */
function mallocCounts(): () => Record<string, number> {
  const libc = Deno.dlopen("libc.so.6", {
    mallinfo2: { parameters: [], result: { struct: Array(10).fill("usize") } },
  });
  return () => {
    const bytes = libc.symbols.mallinfo2() as Uint8Array;
    const fields = new BigUint64Array(bytes.buffer, bytes.byteOffset, 10);
    return {
      rss: Deno.memoryUsage().rss,
      arenas: Number(fields[0]),
      mapped: Number(fields[4]),
      inUse: Number(fields[7]),
      free: Number(fields[8]),
    };
  };
}

if (import.meta.main) {
  const malloc = Deno.env.get("SOAK_MALLINFO") ? mallocCounts() : null;
  const sampler = setInterval(() => {
    console.error(MEMORY_LINE + JSON.stringify(Deno.memoryUsage()));
    if (malloc) console.error(MALLOC_LINE + JSON.stringify(malloc()));
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
