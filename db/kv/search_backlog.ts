/**
 * The search keys of imported files, stored after the import (issue #32).
 * `createMany` (`./files.ts`) writes no search key (`./file_search.ts`):
 * an import's cost on KV was mostly those keys, a score a file at random
 * places in the tree. Each of its atomic operations lists instead, per
 * owner, the files it wrote:
 *
 *     ["file_sfx_todo", owner, first id] → ids
 *
 * A search adds the listed files of its owner to its candidates
 * ({@link backlogIds}), which are checked against the query as every
 * candidate is, so it finds them before their keys exist. {@link buildBacklog}
 * writes the keys of listed files, a batch at a time, in the background
 * ({@link BacklogBuilder}, which the store runs after an import and when it
 * opens with files listed), then drops their lists.
 *
 * A file stored meanwhile (a rename, a deletion) keeps its index right: a
 * write's own index change (`indexFile`) takes the file's keys as those of
 * the record it replaces, which the build may not have stored yet; so,
 * once its keys are stored, the build reads the records again and, for
 * each one that changed since it read it, puts its keys right from what it
 * read to what the record now is, checked on the record.
 */
import type { FileRecord } from "../files.ts";
import { commitChecked, getAll } from "./helpers.ts";
import { indexFile, searchKeys } from "./file_search.ts";
import { setInOrder } from "./many.ts";

/** The prefix of every list. */
export const BACKLOG: Deno.KvKey = ["file_sfx_todo"];

/** The key of the list of `owner`'s files an atomic operation wrote, the first being `first`. */
export const backlogKey = (owner: string, first: string): Deno.KvKey => [
  "file_sfx_todo",
  owner,
  first,
];

/** Files one step of the background build takes (about, whole lists). */
export const BUILD_FILES = 1000;

/**
 * Adds to `op` the list of `ids` (new files of `owner`, in its order) whose
 * search keys are left to the build.
 */
export function listForBuild(op: Deno.AtomicOperation, owner: string, ids: string[]): void {
  if (ids.length > 0) op.set(backlogKey(owner, ids[0]), ids);
}

/** The ids of `owner`'s files whose keys are not built yet; `null` past `limit` of them. */
export async function backlogIds(
  kv: Deno.Kv,
  owner: string,
  limit: number,
): Promise<string[] | null> {
  const ids: string[] = [];
  for await (const { value } of kv.list<string[]>({ prefix: [...BACKLOG, owner] })) {
    ids.push(...value);
    if (ids.length > limit) return null;
  }
  return ids;
}

/**
 * One step of the build: takes the first lists (about `files` files), writes
 * their files' search keys, puts right those of files stored meanwhile,
 * then removes the lists. Returns how many files it took (0: nothing is
 * listed); stops between commits, the lists kept, once `stop()` says so.
 */
export async function buildBacklog(
  kv: Deno.Kv,
  files = BUILD_FILES,
  stop: () => boolean = () => false,
): Promise<number> {
  const lists: Deno.KvEntry<string[]>[] = [];
  let taken = 0;
  for await (const entry of kv.list<string[]>({ prefix: BACKLOG })) {
    lists.push(entry);
    taken += entry.value.length;
    if (taken >= files) break;
  }
  if (lists.length === 0) return 0;
  const ids = lists.flatMap((l) => l.value);
  const read = await getAll<FileRecord>(kv, ids.map((id) => ["file", id]));
  const writes = read.flatMap((e) => e.value === null ? [] : searchKeys(e.value));
  const stopped = await setInOrder(kv, writes, { stop });
  const now = await getAll<FileRecord>(kv, ids.map((id) => ["file", id]));
  for (const [i, entry] of now.entries()) {
    if (entry.versionstamp !== read[i].versionstamp) await putRight(kv, read[i].value, entry.key);
  }
  if (stopped) return taken; // the lists stay: the next step writes their keys again
  const done = kv.atomic();
  for (const list of lists) done.delete(list.key);
  await done.commit();
  return taken;
}

/**
 * Puts right the search keys of the file at `key`, which was `was` when the
 * build wrote its keys: from `was`'s keys to those of the record now.
 */
async function putRight(kv: Deno.Kv, was: FileRecord | null, key: Deno.KvKey): Promise<void> {
  await commitChecked(async () => {
    const current = await kv.get<FileRecord>(key);
    return { op: indexFile(kv.atomic().check(current), was, current.value), result: undefined };
  });
}

/**
 * Runs {@link buildBacklog} in the background until nothing is listed:
 * {@link poke} starts it (or has the run under way look again once done);
 * {@link hold} keeps it from taking lists while the store's own
 * transaction runs (an import whose lists it must not build before they
 * commit); {@link stop} ends it at its next commit.
 */
export class BacklogBuilder {
  #running: Promise<void> | null = null;
  #again = false;
  #held = 0;
  #stopped = false;

  constructor(private readonly kv: Deno.Kv) {}

  /** Starts building, unless stopped or held (the run under way looks again when done). */
  poke(): void {
    if (this.#stopped || this.#held > 0) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#run().finally(() => this.#running = null);
  }

  async #run(): Promise<void> {
    const stop = () => this.#stopped || this.#held > 0;
    do {
      this.#again = false;
      try {
        while (!stop() && await buildBacklog(this.kv, BUILD_FILES, stop) > 0) {
          // each step ends at its own commits
        }
      } catch {
        // A store closed under it, or a failed commit: the lists stay for the next run.
        return;
      }
    } while (this.#again && !stop());
  }

  /** Keeps the build from starting a step until {@link release}. */
  async hold(): Promise<void> {
    this.#held++;
    await this.#running;
  }

  /** Ends a {@link hold}, then builds what is listed. */
  release(): void {
    this.#held--;
    this.poke();
  }

  /** Waits for the run under way, if any, to end. */
  async idle(): Promise<void> {
    await this.#running;
  }

  /** Builds until nothing is listed (the bench, tests), whether held or not. */
  async drain(): Promise<void> {
    await this.#running;
    while (await buildBacklog(this.kv) > 0) {
      // until every list is built
    }
  }

  /** Stops at the next commit and waits for it. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }
}
