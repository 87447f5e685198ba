/**
 * Counts a bench process's Deno KV writes by patching KV's own atomic
 * operation (benches only): the commits, the mutations and the time spent
 * in `commit()`, into a counts object the bench reads and resets.
 */

/** What {@link countKvWrites} adds to. */
export interface KvWriteCounts {
  commits: number;
  mutations: number;
  commitMs: number;
}

/**
 * From now on, adds every atomic operation's commits, mutations (`set`,
 * `delete`, `sum`; each also shown to `onMutation` with its key) and time in
 * `commit()` to `counted`, in this process.
 */
export function countKvWrites(
  counted: KvWriteCounts,
  onMutation?: (kind: "set" | "delete" | "sum", key: Deno.KvKey) => void,
): void {
  const proto = Deno.AtomicOperation.prototype;
  for (const name of ["set", "delete", "sum"] as const) {
    const original = proto[name] as (...a: unknown[]) => Deno.AtomicOperation;
    // deno-lint-ignore no-explicit-any
    (proto as any)[name] = function (this: Deno.AtomicOperation, ...a: unknown[]) {
      counted.mutations++;
      onMutation?.(name, a[0] as Deno.KvKey);
      return original.apply(this, a);
    };
  }
  const commit = proto.commit;
  proto.commit = async function (this: Deno.AtomicOperation) {
    const started = performance.now();
    try {
      return await commit.call(this);
    } finally {
      counted.commits++;
      counted.commitMs += performance.now() - started;
    }
  };
}
