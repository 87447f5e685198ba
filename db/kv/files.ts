/**
 * Files on Deno KV. The record lives under `["file", id]` with a copy under
 * `["file_by_user", owner, id]` (so a user's files are one prefix scan), the
 * name index under `["file_by_name", name]` and the user's counters under
 * `["file_usage", userId]`. Every change checks the versionstamps it read and
 * writes record, copy, index and counters in one atomic operation; a deletion
 * also removes the file's tag links (`./tags.ts`).
 *
 * A new file's search keys are written after it, in the background: its
 * write lists it for the build (`./search_backlog.ts`), and searches take it
 * as a candidate meanwhile. So are an upload's list index entries of every
 * order but the default's (`./order_backlog.ts`): a list in another order
 * builds its owner's first.
 *
 * Uploads' writes (`create`, `complete`) are group-committed: those that
 * arrive while a commit is in flight go together in the next one
 * (`../coalesce.ts`), which reads their records and counters once, applies
 * them in arrival order (a write that would pass a limit is refused and left
 * out, as it would be alone) and commits them all with every versionstamp it
 * read checked. Concurrent uploads of one user would otherwise mostly fail
 * each other's checks and retry. When the group's commit fails (another
 * process, a taken name), each write is done again alone, as before.
 */
import {
  type FileCandidates,
  type FileLimits,
  type FilePatch,
  type FileQuery,
  type FileRecord,
  type FileStats,
  type FileStore,
  type FileUsage,
  queryFiles,
  QuotaError,
  type ViewResult,
} from "../files.ts";
import { UniqueError } from "../errors.ts";
import { Coalescer } from "../coalesce.ts";
import { type Attempt, commitChecked, defined, getAll } from "./helpers.ts";
import { keyBytes, setInOrder, writeInRuns } from "./many.ts";
import { fileTagIdsKey, retag, tagFileKey, taggedFileIds, TAGS_A_STEP } from "./tags.ts";
import { countFile, readStats, recountStats, StatsChange } from "./file_stats.ts";
import {
  blockCost,
  EAGER_KEY,
  fenceEntries,
  IndexChange,
  inTagScope,
  newEntries,
  pageIds,
} from "./file_index.ts";
import { applyFences } from "./file_fences.ts";
import { indexFile, MAX_CANDIDATES, searchFiles } from "./file_search.ts";
import { backlogIds, type BuildStarter, listForBuild } from "./search_backlog.ts";
import { folderedCandidates, taskCandidates, taskIndex, taskKeys } from "./file_tasks.ts";
import { knownAbsent } from "./journal.ts";
import { OpBuffer } from "./op_buffer.ts";
import { leaveSearchKeys } from "./search_sweep.ts";
import { endBlockRecount, recountBlocks, recountFences } from "./file_block_recount.ts";
import { catchUpOrders, markForOrders } from "./order_backlog.ts";
import { mostViewed } from "./file_views.ts";
import { isTagFilter, tagFilterPage } from "./tag_filter.ts";

const K = {
  file: (id: string) => ["file", id],
  byName: (name: string) => ["file_by_name", name],
  byUser: (userId: string | null, id: string) => ["file_by_user", userId ?? "", id],
  userFiles: (userId: string | null) => ["file_by_user", userId ?? ""],
  usage: (userId: string) => usageKey(userId),
  access: (fileId: string, key: string) => ["file_access", fileId, key],
};

/**
 * The most uploads' writes committed together: 2 checks and 3 writes each,
 * their index entries (`INDEX_WRITES_PER_FILE` at most) and task keys, plus
 * one check, one write and one list for the search's build per owner, within
 * an atomic operation's 100 checks and 1000 mutations (a journaled view
 * doubles the writes).
 */
const MAX_GROUP = 12;

/**
 * Checks the fences' sums of a run of removals add (besides a mark's for
 * each file before it): this file's mark, its owner's split epoch.
 */
const INDEX_CHECKS = 2;

/** Files one try of {@link KvFiles.deleteMany} reads; as many of them as fit are removed. */
const REMOVAL_READ = 16;

/**
 * Checks and mutations one removal may hold: KV's 100 checks, and half of
 * its 1000 mutations, so that a journaled view (`journal.ts`) still fits.
 */
const REMOVAL_LIMITS = { checks: 100, mutations: 450 };

/** A group commit's mutations and bytes of keys at most (of KV's 1000 and 80 KiB); more go alone. */
const GROUP_MUTATIONS = 900;
const GROUP_KEY_BYTES = 56 * 1024;
/**
 * Writes of one upload's own besides its index keys (record, copy, name,
 * tasks, usage, the search's list and the other orders' mark).
 */
const GROUP_WRITES_PER_FILE = 11;

/** Index entries a pass of the recount of block counts reads at least. */
const BLOCK_RECOUNT_ENTRIES = 1000;

/** One upload's write, as {@link KvFiles.create} or {@link KvFiles.complete} was asked it. */
type UploadWrite =
  | { kind: "create"; file: FileRecord; limits: FileLimits }
  | { kind: "complete"; id: string; size: number; limits: FileLimits; now: Date };

/** What became of one write of a group: its answer, or what it throws. */
type Outcome = { value: FileRecord | null | undefined } | { error: unknown };

/** The answer of `outcome`, or its error thrown. */
async function settle(outcome: Promise<Outcome>): Promise<FileRecord | null | undefined> {
  const o = await outcome;
  if ("error" in o) throw o.error;
  return o.value;
}

/** The prefix of every owner's copies of its files (`["file_by_user", owner, id]`). */
export const OWNER_COPIES: Deno.KvKey = ["file_by_user"];

/** A user's usage counters; chunked uploads' reservations move them too (`./chunks.ts`). */
export const usageKey = (userId: string): Deno.KvKey => ["file_usage", userId];

/** The counters of a user with none yet. */
export const NO_USAGE: FileUsage = { bytes: 0, files: 0 };

/** Throws {@link QuotaError} when `usage` is past `limits`. */
export function checkLimits(usage: FileUsage, limits: FileLimits): void {
  if (limits.maxFiles !== null && usage.files > limits.maxFiles) throw new QuotaError("files");
  if (limits.maxBytes !== null && usage.bytes > limits.maxBytes) throw new QuotaError("bytes");
}

/** {@link FileStore} on Deno KV. */
export class KvFiles implements FileStore {
  /**
   * `build` is told of each write that listed new files for the build of
   * their search keys (the store's own; a transaction's view has none: the
   * store starts it once the transaction ends).
   */
  constructor(private readonly kv: Deno.Kv, private readonly build?: BuildStarter) {}

  /**
   * Its search keys (`./search_backlog.ts`) and its list entries of the
   * other orders (`./order_backlog.ts`) are left to the build, started soon after.
   */
  async create(file: FileRecord, limits: FileLimits): Promise<void> {
    try {
      await settle(this.uploads.run({ kind: "create", file, limits }));
    } finally {
      this.build?.soon();
    }
  }

  /** {@link create} alone: its own reads and commit, retried until it lands or is refused. */
  private async createAlone(file: FileRecord, limits: FileLimits): Promise<void> {
    await commitChecked(async () => {
      const op = this.kv.atomic().check({ key: K.byName(file.name), versionstamp: null })
        .check({ key: K.file(file.id), versionstamp: null });
      if (file.userId !== null) {
        const usage = await this.kv.get<FileUsage>(K.usage(file.userId));
        const next = { ...(usage.value ?? NO_USAGE) };
        next.files += 1;
        next.bytes += file.size;
        checkLimits(next, limits);
        op.check(usage).set(K.usage(file.userId), next);
      }
      const lost = async () => {
        if ((await this.kv.get(K.byName(file.name))).value !== null) return new UniqueError("name");
        if ((await this.kv.get(K.file(file.id))).value !== null) return new UniqueError("id");
        return null;
      };
      return { op: created(this.write(op, file), [file]), result: undefined, lost };
    });
  }

  /**
   * Writes first, in key order (`setInOrder`), every list index entry of
   * `files` (`./file_index.ts`), then the files themselves, as many as fit
   * an atomic operation each: record, name (checked free), owner copy, task
   * keys, counters, and the index's counts. Stored file by file, the
   * entries of a sort on names or sizes land at random places of KV's tree,
   * which cost most of an import. Meanwhile a files list may list fewer
   * files than it says on a page (an entry whose record is not stored yet
   * is passed over), as an import's files appear one by one anyway. On a
   * failure, the entries of the files not stored are removed (within
   * `Store.transaction`, whose journal undoes the rest, as callers do).
   *
   * Writes no search key (`./file_search.ts`): each run lists its files for
   * the build after it (`./search_backlog.ts`), which the store starts once
   * the call (or its transaction) ends; searches take them as candidates
   * meanwhile.
   */
  async createMany(files: FileRecord[]) {
    const entries = newEntries(files);
    // Each commit of entries sums their fences (`./file_fences.ts`).
    const fenced = async (op: Deno.AtomicOperation, keys: Deno.KvKey[]) => {
      const sums = await fenceEntries(this.kv, keys, 1);
      applyFences(op, sums);
      // A sum and at most a split's mark each (fences and groups), the new fences, the epochs
      // checked and moved.
      return 2 * (sums.sums.length + sums.groups.length) + sums.cuts.length +
        2 * sums.epochs.length;
    };
    await setInOrder(this.kv, entries, { absent: true, also: fenced });
    try {
      await this.writeNew(files);
    } catch (error) {
      const landed = await getAll(this.kv, files.map((f) => K.file(f.id)));
      const kept = new Set(landed.flatMap((e) => e.value === null ? [] : [e.key[1]]));
      const orphans = newEntries(files.filter((f) => !kept.has(f.id)));
      // An entry, its fence's sum and its group's each.
      const third = Math.floor(REMOVAL_LIMITS.mutations / 3);
      for (let i = 0; i < orphans.length; i += third) {
        const keys = orphans.slice(i, i + third).map((e) => e.key);
        await commitChecked(async () => {
          const op = applyFences(this.kv.atomic(), await fenceEntries(this.kv, keys, -1));
          for (const key of keys) op.delete(key);
          return { op, result: undefined };
        });
      }
      throw error;
    }
    this.build?.poke();
  }

  /** {@link createMany}'s files but their index entries, in runs that fit an atomic operation. */
  private async writeNew(files: FileRecord[]) {
    const bytes = (f: FileRecord) =>
      [K.file(f.id), K.byName(f.name), K.byName(f.name), K.byUser(f.userId, f.id), ...taskKeys(f)]
        .reduce((n, key) => n + keyBytes(key), 0);
    await writeInRuns<FileRecord, FileUsage>(this.kv, files, {
      owner: (f) => f.userId,
      // 3 writes and its task keys, and a share of the run's sums (statistics, index counts)
      // and of its owner's list of files to index (gathered: a few per owner), and its block
      // counts (`./file_blocks.ts`; as many as it may move, though a run's files share most).
      cost: (f) => {
        const blocks = blockCost(f);
        return {
          checks: 1,
          mutations: 6 + taskKeys(f).length + blocks.mutations,
          keyBytes: bytes(f) + blocks.bytes,
        };
      },
      counter: K.usage,
      count: (usage, owned) => ({
        files: (usage ?? NO_USAGE).files + owned.length,
        bytes: (usage ?? NO_USAGE).bytes + owned.reduce((sum, f) => sum + f.size, 0),
      }),
      write: (op, f) => {
        this.write(op.check({ key: K.byName(f.name), versionstamp: null }), f);
        taskIndex(op, null, f);
        // New ids, and a name checked free: an import's journal need not read what they held.
        knownAbsent(op, () => [
          K.file(f.id),
          K.byName(f.name),
          K.byUser(f.userId, f.id),
          ...taskKeys(f),
        ]);
      },
      after: (op, run) => {
        const change = new StatsChange();
        const counts = new IndexChange();
        for (const f of run) {
          change.file(null, f);
          counts.counted(f);
        }
        counts.apply(change.apply(op));
        const lists = listForBuild(op, run);
        knownAbsent(op, () => lists);
      },
      clash: async (run) =>
        (await this.takenNames(run.map((f) => f.name))).size ? new UniqueError("name") : null,
    });
  }

  async takenNames(names: string[]) {
    const entries = await getAll(this.kv, names.map(K.byName));
    return new Set(entries.filter((e) => e.value !== null).map((e) => e.key[1] as string));
  }

  async complete(id: string, size: number, limits: FileLimits, now: Date) {
    return await settle(this.uploads.run({ kind: "complete", id, size, limits, now })) ?? null;
  }

  /** {@link complete} alone, as {@link createAlone}. */
  private async completeAlone(id: string, size: number, limits: FileLimits, now: Date) {
    return await commitChecked<FileRecord | null>(async () => {
      const current = await this.kv.get<FileRecord>(K.file(id));
      if (!current.value?.pending) return { result: null };
      const next: FileRecord = { ...current.value, size, pending: false, updatedAt: now };
      const op = this.kv.atomic().check(current);
      if (next.userId !== null) {
        const usage = await this.kv.get<FileUsage>(K.usage(next.userId));
        const counted = { ...(usage.value ?? NO_USAGE) };
        counted.bytes += size - current.value.size;
        checkLimits(counted, limits);
        op.check(usage).set(K.usage(next.userId), counted);
      }
      const index = await indexed(this.kv, current.value, next);
      return { op: changed(this.writeRecord(op, next), current.value, next, index), result: next };
    });
  }

  /** The uploads' writes, group-committed. */
  private readonly uploads = new Coalescer<UploadWrite, Outcome>(
    (writes) => this.commitTogether(writes),
    MAX_GROUP,
  );

  /**
   * Commits `writes` in one atomic operation; when it fails, does each alone.
   * Answers each write's outcome, in order.
   */
  private async commitTogether(writes: UploadWrite[]): Promise<Outcome[]> {
    const together = writes.length > 1 && await this.tryTogether(writes);
    if (together) return together;
    const outcomes: Outcome[] = [];
    for (const w of writes) {
      try {
        if (w.kind === "create") await this.createAlone(w.file, w.limits);
        const value = w.kind === "create"
          ? undefined
          : await this.completeAlone(w.id, w.size, w.limits, w.now);
        outcomes.push({ value });
      } catch (error) {
        outcomes.push({ error });
      }
    }
    return outcomes;
  }

  /**
   * One atomic operation for all of `writes`, applied in order over one read
   * of their records and counters; `null` when its checks fail (nothing was
   * stored) or two of them name the same file.
   */
  private async tryTogether(writes: UploadWrite[]): Promise<Outcome[] | null> {
    const names = new Set<string>();
    for (const w of writes) {
      if (w.kind !== "create") continue;
      if (names.has(w.file.name)) return null;
      names.add(w.file.name);
    }
    const completing = writes.flatMap((w) => w.kind === "complete" ? [w.id] : []);
    if (new Set(completing).size !== completing.length) return null;
    const records = new Map<string, Deno.KvEntryMaybe<FileRecord>>();
    for (const entry of await getAll<FileRecord>(this.kv, completing.map(K.file))) {
      records.set(entry.key[1] as string, entry);
    }
    // Read after the records, which a change of the tags rewrites (`./tags.ts`).
    const tagsOf = new Map(
      (await getAll<string[]>(this.kv, completing.map(fileTagIdsKey)))
        .map((e) => [e.key[1] as string, e.value ?? []]),
    );
    const owners = new Set<string>();
    for (const w of writes) {
      const owner = w.kind === "create" ? w.file.userId : records.get(w.id)!.value?.userId;
      if (owner) owners.add(owner);
    }
    const usages = new Map<string, Deno.KvEntryMaybe<FileUsage>>();
    const counters = new Map<string, FileUsage>();
    for (const entry of await getAll<FileUsage>(this.kv, [...owners].map(K.usage))) {
      const owner = entry.key[1] as string;
      usages.set(owner, entry);
      counters.set(owner, { ...(entry.value ?? NO_USAGE) });
    }
    const op = this.kv.atomic();
    const change = new StatsChange();
    const index = new IndexChange();
    const fresh: FileRecord[] = [];
    const outcomes = writes.map((w): Outcome => {
      let file: FileRecord;
      let files = 0;
      let bytes: number;
      if (w.kind === "create") {
        file = w.file;
        files = 1;
        bytes = file.size;
        op.check({ key: K.byName(file.name), versionstamp: null })
          .check({ key: K.file(file.id), versionstamp: null });
      } else {
        const current = records.get(w.id)!;
        op.check(current);
        if (!current.value?.pending) return { value: null };
        file = { ...current.value, size: w.size, pending: false, updatedAt: w.now };
        bytes = w.size - current.value.size;
      }
      if (file.userId !== null) {
        const counted = counters.get(file.userId)!;
        const next = { files: counted.files + files, bytes: counted.bytes + bytes };
        try {
          checkLimits(next, w.limits);
        } catch (error) {
          return { error };
        }
        counters.set(file.userId, next);
      }
      if (w.kind === "create") this.write(op, file);
      else this.writeRecord(op, file);
      const before = w.kind === "create" ? null : records.get(w.id)!.value;
      change.file(before, file);
      if (w.kind === "create") index.uploaded(file);
      else index.file(before, file, tagsOf.get(file.id));
      taskIndex(op, before, file);
      // A new file's search keys are built after it; a completed one's stay (same name, type).
      if (w.kind === "create") fresh.push(file);
      else indexFile(op, before, file);
      return { value: w.kind === "create" ? undefined : file };
    });
    for (const [owner, entry] of usages) {
      op.check(entry).set(K.usage(owner), counters.get(owner)!);
    }
    (await index.prepare(this.kv)).apply(change.apply(op));
    listForBuild(op, fresh);
    markForOrders(op, fresh);
    // Files in many scopes (block counts: `./file_blocks.ts`) may pass KV's limits together:
    // then each goes alone.
    if (
      index.size + GROUP_WRITES_PER_FILE * writes.length > GROUP_MUTATIONS ||
      index.keyBytes > GROUP_KEY_BYTES
    ) return null;
    return (await op.commit()).ok ? outcomes : null;
  }

  async resize(id: string, size: number, now: Date) {
    return await commitChecked<FileRecord | null>(async () => {
      const current = await this.kv.get<FileRecord>(K.file(id));
      if (!current.value || current.value.pending) return { result: null };
      const next: FileRecord = { ...current.value, size, updatedAt: now };
      const op = this.kv.atomic().check(current);
      if (next.userId !== null) {
        const usage = await this.kv.get<FileUsage>(K.usage(next.userId));
        const counted = { ...(usage.value ?? NO_USAGE) };
        counted.bytes = Math.max(0, counted.bytes + size - current.value.size);
        op.check(usage).set(K.usage(next.userId), counted);
      }
      const index = await indexed(this.kv, current.value, next);
      return { op: changed(this.write(op, next), current.value, next, index), result: next };
    });
  }

  async get(id: string) {
    return (await this.kv.get<FileRecord>(K.file(id))).value;
  }

  async getByName(name: string) {
    const id = (await this.kv.get<string>(K.byName(name))).value;
    return id === null ? null : await this.get(id);
  }

  async namedWithPrefix(prefix: string, limit: number) {
    // Keys of one part order by code point: every name starting with `prefix` sorts in
    // [prefix, prefix + U+10FFFF).
    const ids: string[] = [];
    const range = { start: K.byName(prefix), end: K.byName(`${prefix}\u{10FFFF}`) };
    for await (const entry of this.kv.list<string>(range, { limit })) ids.push(entry.value);
    const files = await getAll<FileRecord>(this.kv, ids.map(K.file));
    return files.flatMap((entry) => entry.value === null ? [] : [entry.value]);
  }

  async update(id: string, patch: FilePatch, now: Date) {
    return await commitChecked<FileRecord | null>(async () => {
      const current = await this.kv.get<FileRecord>(K.file(id));
      if (current.value === null) return { result: null };
      const old = current.value;
      const next: FileRecord = { ...old, ...defined(patch), updatedAt: now };
      const op = this.kv.atomic().check(current);
      if (next.name !== old.name) {
        op.check({ key: K.byName(next.name), versionstamp: null }).delete(K.byName(old.name));
      }
      const lost = async () =>
        next.name !== old.name && (await this.kv.get(K.byName(next.name))).value !== null
          ? new UniqueError("name")
          : null;
      const index = await indexed(this.kv, old, next);
      return { op: changed(this.write(op, next), old, next, index), result: next, lost };
    });
  }

  async delete(id: string) {
    return (await this.deleteMany([id]))[0] ?? null;
  }

  /**
   * Removes the files a few at a time: each try reads up to
   * {@link REMOVAL_READ} records, their tag lists and their owners' usage,
   * and removes, in one atomic operation checked against what it read, as
   * many of them (in order) as fit {@link REMOVAL_LIMITS}; each file's writes
   * are those of a deletion alone (`changed`), merged (`./op_buffer.ts`), but
   * the fences' sums of the list index, read and added for them all at once;
   * their search keys but the type's are left to the build's sweep
   * (`./search_sweep.ts`), when the store has a build.
   */
  async deleteMany(ids: string[]) {
    const removed: FileRecord[] = [];
    let left = [...new Set(ids)];
    while (left.length > 0) {
      const run = await commitChecked(() => this.removeSome(left.slice(0, REMOVAL_READ)));
      removed.push(...run.gone);
      left = left.slice(run.done);
    }
    // Their suffix keys are left to the build's sweep (`./search_sweep.ts`).
    if (removed.length > 0) this.build?.soon();
    return removed;
  }

  /** One try of {@link deleteMany}: how many of `ids` it dealt with, and the records it removed. */
  private async removeSome(ids: string[]): Promise<Attempt<{ gone: FileRecord[]; done: number }>> {
    const records = await getAll<FileRecord>(this.kv, ids.map(K.file));
    // Read after the records, which a change of the tags rewrites (`./tags.ts`).
    const tagLists = await getAll<string[]>(this.kv, ids.map(fileTagIdsKey));
    // A file of many tags sheds them a step at a time first (their entries: `retag`).
    const crowded = tagLists.filter((e) => (e.value?.length ?? 0) > TAGS_A_STEP);
    for (const { key } of crowded) {
      await retag(this.kv, key[1] as string, (had) => had.slice(0, TAGS_A_STEP));
    }
    if (crowded.length > 0) return await this.removeSome(ids);
    const owners = [...new Set(records.flatMap((e) => e.value?.userId ?? []))];
    const usages = new Map(
      (await getAll<FileUsage>(this.kv, owners.map(K.usage))).map((e) => [e.key[1] as string, e]),
    );
    const all = new OpBuffer();
    const counted = new Map<string, FileUsage>();
    const gone: FileRecord[] = [];
    const tagsOf = new Map<string, string[]>();
    let done = 0;
    let fenced = 0;
    for (const [i, entry] of records.entries()) {
      const file = entry.value;
      if (file !== null) {
        const one = this.removal(new OpBuffer(), file, entry, tagLists[i]);
        const owner = file.userId;
        const usage = owner === null ? undefined : usages.get(owner)!;
        if (usage) one.check(usage).set(usage.key, null);
        const size = all.sizeWith(one);
        // Its fences' sums, at most (the run's are read and added together below).
        const sums = new IndexChange().file(file, null, tagLists[i].value ?? []).fenceSize;
        if (
          gone.length > 0 &&
          (size.checks + gone.length + INDEX_CHECKS > REMOVAL_LIMITS.checks ||
            size.mutations + fenced + sums > REMOVAL_LIMITS.mutations)
        ) break;
        all.merge(one);
        fenced += sums;
        if (owner !== null) {
          const left = counted.get(owner) ?? usages.get(owner)!.value ?? NO_USAGE;
          counted.set(owner, {
            bytes: Math.max(0, left.bytes - file.size),
            files: Math.max(0, left.files - 1),
          });
        }
        gone.push(file);
        tagsOf.set(file.id, tagLists[i].value ?? []);
      }
      done = i + 1;
    }
    if (gone.length === 0) return { result: { gone, done } };
    for (const [owner, usage] of counted) all.set(K.usage(owner), usage);
    // The run's fences' sums, their marks and fences read at once (`IndexChange.prepare`).
    const index = new IndexChange();
    for (const file of gone) index.file(file, null, tagsOf.get(file.id));
    (await index.prepare(this.kv)).applyFences(all.op);
    return { op: all.applyTo(this.kv.atomic()), result: { gone, done } };
  }

  /**
   * Adds to `op` the removal of `file` (read as `entry`, its tag list as
   * `tagged`) but its fences' sums (`IndexChange.applyFences`).
   */
  private removal(
    op: OpBuffer,
    file: FileRecord,
    entry: Deno.KvEntryMaybe<FileRecord>,
    tagged: Deno.KvEntryMaybe<string[]>,
  ): OpBuffer {
    op.check(entry, tagged)
      .delete(K.file(file.id))
      .delete(K.byName(file.name))
      .delete(K.byUser(file.userId, file.id))
      .delete(tagged.key);
    for (const tagId of tagged.value ?? []) op.delete(tagFileKey(tagId, file.id));
    // Without a build to sweep them (a transaction's view: its undo restores only what it
    // wrote), the search keys go at once.
    const search = this.build ? leaveSearchKeys : indexFile;
    const index = new IndexChange().file(file, null, tagged.value ?? []);
    changed(op.op, file, null, index, false, search);
    return op;
  }

  async getMany(ids: string[]) {
    const records = await getAll<FileRecord>(this.kv, ids.map(K.file));
    return records.flatMap((e) => e.value === null ? [] : [e.value]);
  }

  /** From the cleaning tasks' index (`./file_tasks.ts`), a folder's index, or a user's copies. */
  async candidates(which: FileCandidates, limit: number) {
    if (which.kind === "foldered") return await folderedCandidates(this.kv, which, limit);
    if (which.kind !== "owned") return await taskCandidates(this.kv, which, limit);
    const files: FileRecord[] = [];
    for await (
      const e of this.kv.list<FileRecord>({ prefix: K.userFiles(which.userId) }, { limit })
    ) {
      files.push(e.value);
    }
    return files;
  }

  /**
   * A page from the owner's index (`./file_index.ts`): the entries before it
   * and its own are read, then its records. One tag's page (`tagIds`) is
   * read so from the tag's scope of the index; several tags, or a tag with a
   * folder or favourites, from the smallest tag's scope checked against the
   * others' (`./tag_filter.ts`); a tag with privacy or a search reads the
   * tags' links (keys alone, intersected), then, as files given by `ids`,
   * their records, sorted in memory; a search reads its candidates from the
   * search index (`./file_search.ts`).
   */
  async list(query: FileQuery) {
    if (inTagScope(query)) return await this.page(query);
    if (isTagFilter(query)) return await this.records(await tagFilterPage(this.kv, query));
    if (query.tagIds) {
      // The tag filter: the tags' files (their links' keys), then as files given by id.
      const { tagIds, ...rest } = query;
      const tagged = await taggedFileIds(this.kv, tagIds);
      const named = rest.ids && new Set(rest.ids);
      query = { ...rest, ids: named ? tagged.filter((id) => named.has(id)) : tagged };
    }
    // Search index (issue #32): a search by name, original name or type reads its candidates.
    const searched = await searchFiles(
      this.kv,
      query,
      (owner) => backlogIds(this.kv, owner, MAX_CANDIDATES),
    );
    if (searched) return searched;
    if (query.search) return queryFiles(await this.listByUser(query.userId), query);
    if (query.ids) {
      const records = await getAll<FileRecord>(this.kv, query.ids.map(K.file));
      return queryFiles(records.flatMap((e) => e.value ? [e.value] : []), query);
    }
    // An upload's entries of the other orders may wait for the build: its owner's first.
    if (query.sortBy !== EAGER_KEY) await catchUpOrders(this.kv, query.userId);
    return await this.page(query);
  }

  /** A page of the list index (`pageIds`), then its records. */
  private async page(query: FileQuery) {
    return await this.records(await pageIds(this.kv, query));
  }

  /** The records of a page's `ids`, with its `total`. */
  private async records({ ids, total }: { ids: string[]; total: number }) {
    const records = await getAll<FileRecord>(this.kv, ids.map(K.file));
    return { files: records.flatMap((e) => e.value ? [e.value] : []), total };
  }

  async listByUser(userId: string) {
    const files: FileRecord[] = [];
    for await (const entry of this.kv.list<FileRecord>({ prefix: K.userFiles(userId) })) {
      files.push(entry.value);
    }
    return files.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async disown(userId: string) {
    for (const file of await this.listByUser(userId)) {
      const current = await this.kv.get<FileRecord>(K.file(file.id));
      if (current.value?.userId !== userId) continue;
      const next = { ...current.value, userId: null };
      // A concurrent change wins; the next call (or the owner's deletion retry) catches up.
      const op = this.kv.atomic().check(current).delete(K.byUser(userId, file.id));
      const index = await indexed(this.kv, current.value, next);
      await changed(this.write(op, next), current.value, next, index).commit();
    }
    await this.kv.delete(K.usage(userId));
  }

  async usage(userId: string) {
    return (await this.kv.get<FileUsage>(K.usage(userId))).value ?? { ...NO_USAGE };
  }

  stats(userId: string | null): Promise<FileStats> {
    return readStats(this.kv, userId);
  }

  /**
   * The list index's entries an upload left to the build first
   * (`./order_backlog.ts`), then its block counts of the owner, then its
   * fences' (`./file_block_recount.ts`: `budget` index entries a pass, at
   * least {@link BLOCK_RECOUNT_ENTRIES}; no record), then its statistics
   * (`read`: their records); done once all are.
   */
  async recountStats(userId: string | null, budget: number) {
    const owner = userId ?? "";
    await catchUpOrders(this.kv, owner);
    const entries = Math.max(budget, BLOCK_RECOUNT_ENTRIES);
    const blocks = await recountBlocks(this.kv, owner, entries);
    if (!blocks.done) return { done: false, repaired: blocks.repaired, read: 0 };
    const fences = await recountFences(this.kv, owner, entries);
    const repaired = blocks.repaired + fences.repaired;
    if (!fences.done) return { done: false, repaired, read: 0 };
    const stats = await recountStats(this.kv, owner, K.userFiles(userId), budget);
    if (stats.done) await endBlockRecount(this.kv, owner);
    return { ...stats, repaired: repaired + stats.repaired };
  }

  async addView(id: string): Promise<ViewResult> {
    return await commitChecked<ViewResult>(async () => {
      const current = await this.kv.get<FileRecord>(K.file(id));
      const file = current.value;
      if (!file || file.pending) return { result: "missing" };
      if (file.maxViews !== null && file.views >= file.maxViews) return { result: "exhausted" };
      const next = { ...file, views: file.views + 1 };
      const index = await indexed(this.kv, file, next);
      const op = changed(this.write(this.kv.atomic().check(current), next), file, next, index);
      return { op, result: "counted" };
    });
  }

  /** From the viewed files' index (`./file_views.ts`), then the name index. */
  mostViewed(take: number) {
    return mostViewed(this.kv, take);
  }

  async grantAccess(fileId: string, key: string, expiresAt: Date, now: Date) {
    const expireIn = Math.max(1, expiresAt.getTime() - now.getTime()) + 1000;
    await this.kv.set(K.access(fileId, key), expiresAt.getTime(), { expireIn });
  }

  async hasAccess(fileId: string, key: string, now: Date) {
    const until = (await this.kv.get<number>(K.access(fileId, key))).value;
    return until !== null && until > now.getTime();
  }

  async *iterate(after?: string): AsyncIterable<FileRecord> {
    const prefix = ["file"];
    const selector = after === undefined ? { prefix } : { prefix, start: [...K.file(after), ""] };
    for await (const entry of this.kv.list<FileRecord>(selector, { batchSize: 500 })) {
      yield entry.value;
    }
  }

  /** Adds the writes of `file`: record, owner copy and name index. */
  private write(op: Deno.AtomicOperation, file: FileRecord): Deno.AtomicOperation {
    return this.writeRecord(op, file).set(K.byName(file.name), file.id);
  }

  /** Adds the writes of `file` whose name and owner are unchanged: record and owner copy. */
  private writeRecord(op: Deno.AtomicOperation, file: FileRecord): Deno.AtomicOperation {
    return op.set(K.file(file.id), file).set(K.byUser(file.userId, file.id), file);
  }
}

/**
 * Adds the changes of uploaded `files` to `op`: the counters', the list
 * index's of the default order and the task index's, and their lists for the
 * build of their search keys (`./search_backlog.ts`) and of their other
 * orders' entries (`./order_backlog.ts`), which {@link changed} would write at once.
 */
function created(op: Deno.AtomicOperation, files: FileRecord[]): Deno.AtomicOperation {
  const index = new IndexChange();
  for (const file of files) {
    taskIndex(countFile(op, null, file), null, file);
    index.uploaded(file);
  }
  index.apply(op);
  listForBuild(op, files);
  markForOrders(op, files);
  return op;
}

/**
 * The list index's changes of a write of one file (`before` → `after`,
 * whose record the caller read and checks), read from `kv`: its tags' too
 * (their list read after the record: a change of them rewrites the record).
 */
async function indexed(kv: Deno.Kv, before: FileRecord | null, after: FileRecord | null) {
  const tags = await kv.get<string[]>(fileTagIdsKey((after ?? before)!.id));
  return await new IndexChange().file(before, after, tags.value ?? []).prepare(kv);
}

/**
 * Adds the counters', the list index's (`index`: {@link indexed}; with its
 * fences' sums unless not `fenced`: the caller adds them) and the search
 * index's changes (by `search`) of a write of one file (`before` → `after`) to `op`.
 */
function changed(
  op: Deno.AtomicOperation,
  before: FileRecord | null,
  after: FileRecord | null,
  index: IndexChange,
  fenced = true,
  search: typeof indexFile = indexFile,
): Deno.AtomicOperation {
  if (fenced) index.apply(op);
  else index.applyEntries(op);
  const indexed = search(countFile(op, before, after), before, after);
  return taskIndex(indexed, before, after);
}
