/**
 * Deno KV handles that wait for each other. When another handle on the same
 * file (another process, or another store in this one) holds SQLite's write
 * lock, Deno KV throws a `TypeError` "database is locked" instead of waiting
 * for it. {@link patient} makes every write of a handle wait instead: a
 * refused write was not applied, so trying it again after a pause is the same
 * write made later (an atomic operation's checks still decide), and no caller
 * ever meets that error while the other handle finishes.
 */

/** How long a write waits for another handle's write lock before it gives up (ms). */
const LOCKED_PATIENCE_MS = 5000;
/** The pause before a write another handle's write lock refused is tried again (ms). */
const LOCKED_PAUSE_MS = 2;

/** Whether `error` is Deno KV's refusal while another handle on its file holds SQLite's write lock. */
function isLocked(error: unknown): boolean {
  return error instanceof TypeError && error.message === "database is locked";
}

/** Runs `write`, again after a pause each time the file's write lock refused it, for at most 5 s. */
async function patiently<T>(write: () => Promise<T>): Promise<T> {
  for (let waited = 0;; waited += LOCKED_PAUSE_MS) {
    try {
      return await write();
    } catch (error) {
      if (!isLocked(error) || waited >= LOCKED_PATIENCE_MS) throw error;
      await new Promise((wake) => setTimeout(wake, LOCKED_PAUSE_MS));
    }
  }
}

/**
 * `kv` itself, its writes (`set`, `delete` and every atomic operation's
 * `commit`) made to wait while another handle on its file holds the write
 * lock, for at most 5 s each. Reads are left as they are: SQLite's readers
 * do not wait for its writer.
 */
export function patient(kv: Deno.Kv): Deno.Kv {
  const atomic = kv.atomic.bind(kv);
  const set = kv.set.bind(kv);
  const remove = kv.delete.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => patiently(commit);
    return op;
  };
  kv.set = (key, value, options) => patiently(() => set(key, value, options));
  kv.delete = (key) => patiently(() => remove(key));
  return kv;
}
