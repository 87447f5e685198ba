/**
 * One tag's pages of the files list on Deno KV, in-process (issue #32, KV
 * schema 19: the tag's scope of the list index), this checkout's store code
 * against another's, over copies of one store: one user's files, 1 in 200
 * carrying one tag (`bench/scale.ts`'s shape). Each round runs each side in
 * a process of its own (alternated): it opens the store (no background
 * build), asks each page once (the first request after a start), then
 * {@link REPEATS} more times (their median); then the writes of adding the
 * tag to an untagged file (and of taking it off again). Prints a Markdown
 * table: medians over the rounds.
 *
 * Run: `deno run --allow-all --unstable-kv bench/kv_tag_pages.ts
 * --base=<other checkout> --old=<its store> --new=<this code's store> [--rounds=3]`.
 * A store is built by `--build=<store> --code=<checkout> --files=<n>` (that
 * checkout's schema: the records, owner copies and names written directly,
 * without the list index, which the tag filter does not read; the links by
 * its `KvTags`); a copy of it is the new side's once this code has opened
 * it (`--upgrade=<store>` times the upgrade and splits the tag scope's long
 * blocks, as the background build does).
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { FileQuery, FileStore } from "../db/files.ts";
import type { KvWriteCounts } from "./helpers/kv_writes.ts";
import { newId, systemRandom } from "../core/clock.ts";
import { benchFile } from "./scale.ts";

/** After the first ask of a page, how many more give its median. */
const REPEATS = 7;
const HERE = resolve(import.meta.dirname!, "..");

/** The store's facts the builder wrote beside it (`<store>.json`). */
interface Facts {
  userId: string;
  tagId: string;
  tagged: number;
}

/** The pages asked: label and query (15 a page). */
function asks(f: Facts): { label: string; q: FileQuery }[] {
  const q = (sortBy: FileQuery["sortBy"], order: "asc" | "desc", page: number): FileQuery => ({
    userId: f.userId,
    sortBy,
    order,
    offset: (page - 1) * 15,
    limit: 15,
    tagIds: [f.tagId],
  });
  const deep = Math.floor(f.tagged / 15 / 2) + 1;
  return [
    { label: "newest first, page 1", q: q("createdAt", "desc", 1) },
    { label: `newest first, page ${deep} (the middle)`, q: q("createdAt", "desc", deep) },
    { label: "by name, page 1", q: q("name", "asc", 1) },
    { label: `by name, page ${deep}`, q: q("name", "asc", deep) },
    { label: "by size, largest first, page 1", q: q("size", "desc", 1) },
    { label: `by size, largest first, page ${deep}`, q: q("size", "desc", deep) },
  ];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One side's run in this process: `code` its checkout, `store` its store. */
async function measure(code: string, store: string) {
  const mod = (p: string) => import(pathToFileURL(join(code, p)).href);
  const facts: Facts = JSON.parse(await Deno.readTextFile(`${store}.json`));
  const { KvFiles } = await mod("db/kv/files.ts");
  const { KvTags } = await mod("db/kv/tags.ts");
  const { countKvWrites } = await mod("bench/helpers/kv_writes.ts");
  const kv = await Deno.openKv(store);
  const files: FileStore = new KvFiles(kv);
  const out: Record<string, number> = {};
  for (const { label, q } of asks(facts)) {
    const t0 = performance.now();
    const first = await files.list(q);
    out[`${label}, first`] = performance.now() - t0;
    if (first.total !== facts.tagged) throw new Error(`${label}: total ${first.total}`);
    const times = [];
    for (let i = 0; i < REPEATS; i++) {
      const t = performance.now();
      await files.list(q);
      times.push(performance.now() - t);
    }
    out[`${label}, then`] = median(times);
  }
  // The write of a tag added to an untagged file, and taken off again.
  const counted: KvWriteCounts = { commits: 0, mutations: 0, commitMs: 0 };
  countKvWrites(counted);
  const tags = new KvTags(kv);
  // The user's second file: the first of 200 is tagged, the next not.
  const [, untagged] = await Array.fromAsync(
    kv.list<{ id: string }>({ prefix: ["file_by_user", facts.userId] }, { limit: 2 }),
    (e) => e.value,
  );
  const t = performance.now();
  await tags.setFileTags(untagged.id, [facts.tagId]);
  out["tag added: ms"] = performance.now() - t;
  out["tag added: commits"] = counted.commits;
  out["tag added: mutations"] = counted.mutations;
  counted.commits = counted.mutations = 0;
  await tags.setFileTags(untagged.id, []);
  out["tag removed: mutations"] = counted.mutations;
  kv.close();
  return out;
}

/** This code's upgrade of `store` (schema 19), then the splits the background build makes. */
async function upgrade(store: string) {
  const { openKvStore } = await import("../db/kv/mod.ts");
  const { splitFences } = await import("../db/kv/file_fences.ts");
  const t0 = performance.now();
  const opened = await openKvStore(store);
  const upgradeMs = performance.now() - t0;
  await opened.close();
  const kv = await Deno.openKv(store);
  const t1 = performance.now();
  const blocks = await splitFences(kv);
  console.log({ upgradeMs, splitMs: performance.now() - t1, blocks });
  kv.close();
}

/** Builds at `store`, in the store code of `code`, one user's `n` file records, 1 in 200 tagged. */
async function build(code: string, store: string, n: number) {
  const mod = (p: string) => import(pathToFileURL(join(code, p)).href);
  const { openKvStore } = await mod("db/kv/mod.ts");
  const { KvTags } = await mod("db/kv/tags.ts");
  await (await openKvStore(store)).close(); // its schema
  const kv = await Deno.openKv(store);
  const tags = new KvTags(kv);
  const facts: Facts = { userId: "u-bench", tagId: newId(systemRandom, Date.now()), tagged: 0 };
  const now = Date.now();
  const at = new Date(now);
  await tags.create({
    id: facts.tagId,
    name: "bench",
    color: "#123456",
    userId: facts.userId,
    createdAt: at,
    updatedAt: at,
  });
  const tagged: string[] = [];
  for (let i = 0; i < n; i += 250) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(n, i + 250); j++) {
      const f = benchFile(facts.userId, j, n, now, { folderId: "f-bench" });
      op.set(["file", f.id], f).set(["file_by_user", f.userId!, f.id], f)
        .set(["file_by_name", f.name], f.id);
      if (j % 200 === 0) tagged.push(f.id);
    }
    await op.commit();
  }
  for (let i = 0; i < tagged.length; i += 50) {
    await Promise.all(tagged.slice(i, i + 50).map((id) => tags.setFileTags(id, [facts.tagId])));
  }
  facts.tagged = tagged.length;
  await Deno.writeTextFile(`${store}.json`, JSON.stringify(facts));
  kv.close();
}

const arg = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

if (arg("build")) await build(arg("code")!, arg("build")!, Number(arg("files")));
else if (arg("upgrade")) await upgrade(arg("upgrade")!);
else if (arg("side")) {
  console.log(JSON.stringify(await measure(arg("code")!, arg("side")!)));
} else {
  const rounds = Number(arg("rounds") ?? 3);
  const sides = {
    old: { code: arg("base")!, store: arg("old")! },
    new: { code: HERE, store: arg("new")! },
  };
  const runs: Record<string, Record<string, number>[]> = { old: [], new: [] };
  for (let r = 0; r < rounds; r++) {
    for (const name of (r % 2 ? ["new", "old"] : ["old", "new"]) as ("old" | "new")[]) {
      const { code, store } = sides[name];
      const cmd = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          "--unstable-kv",
          import.meta.filename!,
          `--code=${code}`,
          `--side=${store}`,
        ],
        stderr: "inherit",
      });
      const { stdout } = await cmd.output();
      const lines = new TextDecoder().decode(stdout).trim().split("\n");
      runs[name].push(JSON.parse(lines.at(-1)!));
      console.error(`round ${r + 1} ${name} done`);
    }
  }
  const rows = Object.keys(runs.old[0]);
  const fmt = (x: number) => x >= 100 ? x.toFixed(0) : x.toFixed(1);
  console.log(`| request (median of ${rounds} rounds) | before | after |`);
  console.log("| --- | ---: | ---: |");
  for (const row of rows) {
    const m = (name: "old" | "new") => median(runs[name].map((o) => o[row]));
    console.log(`| ${row} | ${fmt(m("old"))} | ${fmt(m("new"))} |`);
  }
}
