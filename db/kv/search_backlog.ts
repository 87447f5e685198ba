/**
 * The search keys of new files, stored after their write (issue #32).
 * Neither an import (`createMany`, `./files.ts`) nor an upload (`create`)
 * writes its files' search keys (`./file_search.ts`): an import's cost on KV
 * was mostly those keys, a score a file at random places in the tree, and
 * they were a quarter of an upload's atomic operation (bench/results/
 * serving_store.md). Each of their atomic operations lists instead, per
 * owner, the files it wrote:
 *
 *     ["file_sfx_todo", owner, first id] → files ([id, name, originalName, type], or ids)
 *
 * A search adds the listed files of its owner to its candidates
 * ({@link backlogIds}), which are checked against the query as every
 * candidate is, so it finds them before their keys exist. {@link buildBacklog}
 * writes the keys of listed files, a batch at a time, in key order, in the
 * background ({@link BacklogBuilder}, which the store runs after an import,
 * within {@link BUILD_DELAY_MS} of an upload, so that the uploads of that
 * while are built together, and when it opens with files listed), then
 * drops their lists.
 *
 * A listed file's searched fields (names, type) travel in its list, written
 * in the same atomic operation as the record, so the build writes its keys
 * without reading it (a long list names some files by id alone: those it
 * reads first, as it did every file before lists carried the fields).
 *
 * A file stored meanwhile (a rename, a deletion) keeps its index right: a
 * write's own index change (`indexFile`) takes the file's keys as those of
 * the record it replaces, which the build may not have stored yet; so,
 * once its keys are stored, the build checks the records unchanged since
 * (a listed file's versionstamp is its list's) and, where a check fails,
 * reads them and, for each one whose searched fields are not those it wrote
 * the keys of (listed or read), puts its keys right from those to what the
 * record now is, checked on the record. A file deleted before the build gets
 * its keys and loses them at once.
 */
import type { FileRecord } from "../files.ts";
import { commitChecked, getAll } from "./helpers.ts";
import { indexFile, sameSearched, type Searched, searchKeys } from "./file_search.ts";
import { setInOrder } from "./many.ts";
import { buildOrders, ORDER_FILES } from "./order_backlog.ts";
import { SWEEP_FILES, sweepGone } from "./search_sweep.ts";

/** The prefix of every list. */
export const BACKLOG: Deno.KvKey = ["file_sfx_todo"];

/** The key of the list of `owner`'s files an atomic operation wrote, the first being `first`. */
export const backlogKey = (owner: string, first: string): Deno.KvKey => [
  "file_sfx_todo",
  owner,
  first,
];

/** Records one atomic operation of the build checks unchanged (KV allows 100 checks). */
const CHECKS = 100;

/** Files one step of the background build takes (about, whole lists). */
export const BUILD_FILES = 1000;

/**
 * How long after an upload the build starts ({@link BacklogBuilder.soon}):
 * the uploads of those seconds are built in one step, their keys in order.
 * A bigger step writes more of its keys to each page of KV's tree it
 * dirties: on 10,000 files' keys, 1,000 files a step cost KV's writer
 * thread 160-167 µs a file against 240-327 at 100-200 a step (the whole
 * process 307-340 against 377-473; bench/results/uploads_paired.md), and a
 * stream of small uploads lists some hundreds a second.
 */
export const BUILD_DELAY_MS = 3000;

/**
 * A file in a list: `[id, name, originalName, type]`, the fields its search
 * keys come from (its owner is the list's), so that the build need not read
 * its record; or its id alone, in a list past {@link CARRIED_BYTES} (a long
 * import run) or one written before the fields were carried.
 */
export type ListedFile = string | [
  id: string,
  name: string,
  originalName: string | null,
  type: string,
];

/** Bytes of fields one list carries at most, about (a list is one value: KV's limit is 64 KiB). */
const CARRIED_BYTES = 8 * 1024;

/** The id of a listed file. */
const listedId = (item: ListedFile): string => typeof item === "string" ? item : item[0];

/**
 * Adds to `op` the lists of new `files` (an import's run, an upload's group)
 * whose search keys are left to the build: one list per owner, of its files
 * in their order, each with its searched fields while they fit
 * ({@link ListedFile}; files without an owner have no keys). Returns the lists' keys.
 */
export function listForBuild(op: Deno.AtomicOperation, files: FileRecord[]): Deno.KvKey[] {
  const owned = new Map<string, { items: ListedFile[]; bytes: number }>();
  for (const f of files) {
    if (f.userId === null) continue;
    let list = owned.get(f.userId);
    if (list === undefined) owned.set(f.userId, list = { items: [], bytes: 0 });
    // UTF-16 units × 3: at least their UTF-8 bytes.
    const bytes = 3 * (f.name.length + (f.originalName?.length ?? 0) + f.type.length);
    if (list.bytes + bytes > CARRIED_BYTES) list.items.push(f.id);
    else {
      list.items.push([f.id, f.name, f.originalName, f.type]);
      list.bytes += bytes;
    }
  }
  return [...owned].map(([owner, { items }]) => {
    const key = backlogKey(owner, listedId(items[0]));
    op.set(key, items);
    return key;
  });
}

/** What starts the build after a write that listed files ({@link BacklogBuilder}). */
export type BuildStarter = Pick<BacklogBuilder, "poke" | "soon">;

/** The ids of `owner`'s files whose keys are not built yet; `null` past `limit` of them. */
export async function backlogIds(
  kv: Deno.Kv,
  owner: string,
  limit: number,
): Promise<string[] | null> {
  const ids: string[] = [];
  for await (const { value } of kv.list<ListedFile[]>({ prefix: [...BACKLOG, owner] })) {
    ids.push(...value.map(listedId));
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
  const lists: Deno.KvEntry<ListedFile[]>[] = [];
  let taken = 0;
  for await (const entry of kv.list<ListedFile[]>({ prefix: BACKLOG })) {
    lists.push(entry);
    taken += entry.value.length;
    if (taken >= files) break;
  }
  if (lists.length === 0) return 0;
  // Each file as listed (its fields carried), or as read now (listed by id alone).
  const was: (Searched | null)[] = [];
  // The versionstamp each record had then: a listed file's is its list's (one commit wrote both).
  const stamps: (string | null)[] = [];
  const bare: number[] = [];
  for (const list of lists) {
    const owner = list.key[1] as string;
    for (const item of list.value) {
      if (typeof item === "string") bare.push(was.length);
      stamps.push(list.versionstamp);
      was.push(
        typeof item === "string"
          ? null
          : { id: item[0], userId: owner, name: item[1], originalName: item[2], type: item[3] },
      );
    }
  }
  const ids = lists.flatMap((l) => l.value.map(listedId));
  const read = await getAll<FileRecord>(kv, bare.map((i) => ["file", ids[i]]));
  for (const [j, i] of bare.entries()) [was[i], stamps[i]] = [read[j].value, read[j].versionstamp];
  const writes = was.flatMap((f) => f === null ? [] : searchKeys(f));
  const stopped = await setInOrder(kv, writes, { stop });
  // A file stored since (renamed, deleted) may have got these keys after its own change: the
  // records are checked unchanged, {@link CHECKS} a commit, and those of a failed one read.
  for (let at = 0; at < ids.length; at += CHECKS) {
    const op = kv.atomic();
    const end = Math.min(ids.length, at + CHECKS);
    for (let i = at; i < end; i++) op.check({ key: ["file", ids[i]], versionstamp: stamps[i] });
    if ((await op.commit()).ok) continue;
    const now = await getAll<FileRecord>(kv, ids.slice(at, end).map((id) => ["file", id]));
    for (const [j, entry] of now.entries()) {
      if (!sameSearched(was[at + j], entry.value)) await putRight(kv, was[at + j], entry.key);
    }
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
async function putRight(kv: Deno.Kv, was: Searched | null, key: Deno.KvKey): Promise<void> {
  await commitChecked(async () => {
    const current = await kv.get<FileRecord>(key);
    return { op: indexFile(kv.atomic().check(current), was, current.value), result: undefined };
  });
}

/**
 * One step of each build: the search keys' ({@link buildBacklog}), the
 * uploads' other list orders' (`./order_backlog.ts`) and the removed files'
 * search keys' sweep (`./search_sweep.ts`). Whether any took a whole batch
 * (more may be left).
 */
async function buildStep(kv: Deno.Kv, stop: () => boolean): Promise<boolean> {
  const searched = await buildBacklog(kv, BUILD_FILES, stop);
  const ordered = stop() ? 0 : await buildOrders(kv, { stop });
  const swept = stop() ? 0 : await sweepGone(kv, { stop });
  return searched >= BUILD_FILES || ordered >= ORDER_FILES || swept >= SWEEP_FILES;
}

/**
 * Runs {@link buildBacklog} in the background until nothing is listed (and
 * the uploads' other list orders, `./order_backlog.ts`, until none is marked):
 * {@link poke} starts it (or has the run under way look again once done),
 * {@link soon} within {@link BUILD_DELAY_MS}; {@link hold} keeps it from
 * taking lists while the store's own transaction runs (an import whose lists
 * it must not build before they commit); {@link stop} ends it at its next
 * commit.
 */
export class BacklogBuilder {
  #running: Promise<void> | null = null;
  #again = false;
  #held = 0;
  #stopped = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

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

  /**
   * Starts building within {@link BUILD_DELAY_MS}, unless a start is due
   * already (an upload's lists: one step builds that while's uploads). The
   * timer keeps no process alive.
   */
  soon(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.poke();
    }, BUILD_DELAY_MS);
    Deno.unrefTimer(this.#timer);
  }

  async #run(): Promise<void> {
    const stop = () => this.#stopped || this.#held > 0;
    do {
      this.#again = false;
      try {
        // A step that took less than a whole batch found the backlog empty after it: files
        // listed since started a build of their own (`soon`, `poke`), so that uploads arriving
        // while it runs are built together a while later, not a few at a time.
        while (!stop() && await buildStep(this.kv, stop)) {
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

  /** Builds until nothing is listed or marked (the bench, tests), whether held or not. */
  async drain(): Promise<void> {
    await this.#running;
    while (
      await buildBacklog(this.kv) + await buildOrders(this.kv) + await sweepGone(this.kv) > 0
    ) {
      // until every list is built
    }
  }

  /** Stops at the next commit (a start due {@link soon} with it) and waits for it. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
