/**
 * The files list's tag filter combined with another filter, and two tags,
 * on Deno KV in-process (issue #32): this checkout's store code against
 * another's, on one store of one user's `benchFile` files (1 in 20 a
 * favourite, 1 in 50 in a folder, 5 types) carrying four tags: `small`
 * (1 in 200), `big` (1 in 5, every `small` file among them), `apart` (1 in
 * 5 others, and 1 in 10,000 of `big`'s) and none else. Each round runs each
 * side in a process of its own (alternated): it opens the store (no
 * background build), asks each page once (the first request after a
 * start), then {@link REPEATS} more times (their median; a page of seconds
 * {@link SLOW_REPEATS} times), and checks both
 * sides' totals are the same. Prints a Markdown table: medians over the
 * rounds.
 *
 * Run: `deno run --allow-all --unstable-kv bench/kv_tag_filter.ts
 * --base=<other checkout> --store=<store> [--rounds=3] [--only=<label start>,…]`
 * (the asks whose label starts so; CPU time too: the process's, user and
 * system, median of the asks after the first); the store is built
 * by `--build=<store> --files=<n>`: the records, owner copies, tag links
 * both ways, and the list index's entries (and counts) of the favourites',
 * the folder's and the tags' scopes in the orders asked, written directly
 * (the scope of all files, the blocks and the fences, which no ask here
 * reads, are left out: a real import of a million takes over 20 minutes).
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { cpuUsage } from "node:process";
import type { FileQuery, FileRecord, FileSortKey, FileStore } from "../db/files.ts";
import { newId, systemRandom } from "../core/clock.ts";
import { benchFile } from "./scale.ts";

/** After the first ask of a page, how many more give its median. */
const REPEATS = 5;
/** A page whose first ask took over this many milliseconds is asked only {@link SLOW_REPEATS} more times. */
const SLOW_MS = 2000;
const SLOW_REPEATS = 2;
const HERE = resolve(import.meta.dirname!, "..");
/** The orders the store is built in (and asked). */
const ORDERS: FileSortKey[] = ["createdAt", "name", "size"];

/** The store's facts the builder wrote beside it (`<store>.json`). */
interface Facts {
  userId: string;
  folderId: string;
  tags: Record<"small" | "big" | "apart", string>;
}

/** The tags of the `i`th file. */
function tagsOf(i: number): ("small" | "big" | "apart")[] {
  const out: ("small" | "big" | "apart")[] = [];
  if (i % 200 === 0) out.push("small");
  if (i % 5 === 0) out.push("big");
  if (i % 5 === 1 || i % 10_000 === 0) out.push("apart");
  return out;
}

/** The pages asked: label and query (15 a page). */
function asks(f: Facts): { label: string; q: FileQuery }[] {
  const q = (
    sortBy: FileSortKey,
    order: "asc" | "desc",
    tags: (keyof Facts["tags"])[],
    extra: Partial<FileQuery> = {},
  ): FileQuery => ({
    userId: f.userId,
    sortBy,
    order,
    offset: 0,
    limit: 15,
    tagIds: tags.map((t) => f.tags[t]),
    ...extra,
  });
  const fav = { favorite: true };
  const types = { typePrefixes: ["image/", "video/", "audio/", "text/"] };
  const folder = { folderId: f.folderId };
  return [
    { label: "5k tag + favourites, newest first", q: q("createdAt", "desc", ["small"], fav) },
    { label: "5k tag + favourites, by name", q: q("name", "asc", ["small"], fav) },
    { label: "5k tag + folder, largest first", q: q("size", "desc", ["small"], folder) },
    {
      label: "5k tag + dashboard types + favourites",
      q: q("createdAt", "desc", ["small"], {
        ...types,
        ...fav,
      }),
    },
    { label: "200k tag + favourites, newest first", q: q("createdAt", "desc", ["big"], fav) },
    {
      label: "200k tag + not favourites, by name",
      q: q("name", "asc", ["big"], {
        favorite: false,
      }),
    },
    { label: "200k tag + folder, newest first", q: q("createdAt", "desc", ["big"], folder) },
    {
      label: "200k tag + dashboard types, page 2",
      q: q("size", "desc", ["big"], {
        ...types,
        offset: 15,
      }),
    },
    { label: "5k ∩ 200k tags (5,000), newest first", q: q("createdAt", "desc", ["small", "big"]) },
    { label: "200k ∩ 200k tags (100), by name", q: q("name", "asc", ["big", "apart"]) },
    { label: "200k ∩ 200k tags + favourites", q: q("createdAt", "desc", ["big", "apart"], fav) },
  ];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One side's run in this process: `code` its checkout. */
async function measure(code: string, store: string) {
  const mod = (p: string) => import(pathToFileURL(join(code, p)).href);
  const facts: Facts = JSON.parse(await Deno.readTextFile(`${store}.json`));
  const { KvFiles } = await mod("db/kv/files.ts");
  const kv = await Deno.openKv(store);
  const files: FileStore = new KvFiles(kv);
  const out: Record<string, number> = {};
  const only = arg("only")?.split(",");
  for (const { label, q } of asks(facts)) {
    if (only && !only.some((o) => label.startsWith(o))) continue;
    const t0 = performance.now();
    const first = await files.list(q);
    out[`${label}, first`] = performance.now() - t0;
    out[`${label}: total`] = first.total;
    out[`${label}: ids`] = hash(first.files.map((f) => f.id).join());
    const times = [];
    const cpu = [];
    for (let i = 0; i < (out[`${label}, first`] > SLOW_MS ? SLOW_REPEATS : REPEATS); i++) {
      const t = performance.now();
      const c = cpuUsage();
      await files.list(q);
      times.push(performance.now() - t);
      const used = cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
    }
    out[`${label}, then`] = median(times);
    out[`${label}, then, CPU ms`] = median(cpu);
  }
  kv.close();
  return out;
}

/** A number for a page's ids, to compare the sides' answers. */
function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

/** The list index entry of `file` in `scope` for `sortBy` (`db/kv/file_index.ts`'s shape). */
function entry(file: FileRecord, scope: string, sortBy: FileSortKey, bare: boolean) {
  const v = file[sortBy];
  const part = v === null || v === undefined
    ? [1, 0]
    : [0, v instanceof Date ? v.getTime() : typeof v === "boolean" ? (v ? 1 : 0) : v];
  const flags = bare ? 0 : (file.favorite ? 1 : 0) | (file.private ? 2 : 0);
  return {
    key: ["file_index", file.userId!, scope, sortBy, ...part, file.id] as Deno.KvKey,
    value: [flags, file.type],
  };
}

/** Builds at `store` one user's `n` files (see the module's doc), with this code's schema. */
async function build(store: string, n: number) {
  const { openKvStore } = await import("../db/kv/mod.ts");
  await (await openKvStore(store)).close(); // its schema
  const kv = await Deno.openKv(store);
  const now = Date.now();
  const at = new Date(now);
  const facts: Facts = {
    userId: "u-bench",
    folderId: newId(systemRandom, now),
    tags: { small: "", big: "", apart: "" },
  };
  const counts = new Map<string, number>();
  for (const name of ["small", "big", "apart"] as const) {
    const id = newId(systemRandom, now);
    facts.tags[name] = id;
    const tag = { id, name, color: "#123456", userId: facts.userId, createdAt: at, updatedAt: at };
    await kv.set(["tag", id], tag);
    await kv.set(["tag_by_user", facts.userId, id], tag);
    await kv.set(["tag_name", facts.userId, name], id);
  }
  let op = kv.atomic();
  let queued = 0;
  const put = async (key: Deno.KvKey, value: unknown) => {
    op.set(key, value);
    if (++queued >= 500) {
      await op.commit();
      op = kv.atomic();
      queued = 0;
    }
  };
  for (let i = 0; i < n; i++) {
    const f = benchFile(facts.userId, i, n, now, { folderId: facts.folderId });
    await put(["file", f.id], f);
    await put(["file_by_user", f.userId!, f.id], f);
    const scopes: [string, boolean][] = [];
    if (f.favorite) scopes.push(["fav", false]);
    if (f.folderId) scopes.push([`folder:${f.folderId}`, false]);
    const tags = tagsOf(i).map((t) => facts.tags[t]);
    for (const t of tags) {
      scopes.push([`tag:${t}`, true]);
      await put(["tag_file", t, f.id], true);
    }
    if (tags.length > 0) await put(["file_tag_ids", f.id], tags);
    for (const [scope, bare] of scopes) {
      counts.set(scope, (counts.get(scope) ?? 0) + 1);
      for (const sortBy of ORDERS) {
        const e = entry(f, scope, sortBy, bare);
        await put(e.key, e.value);
      }
    }
    if (i % 100_000 === 99_999) console.error(`  ${i + 1} files`);
  }
  await op.commit();
  for (const [scope, count] of counts) {
    await kv.set(["file_index_n", facts.userId, scope], new Deno.KvU64(BigInt(count)));
  }
  await Deno.writeTextFile(`${store}.json`, JSON.stringify(facts));
  kv.close();
}

const arg = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

if (arg("build")) await build(arg("build")!, Number(arg("files")));
else if (arg("side")) {
  console.log(JSON.stringify(await measure(arg("code")!, arg("side")!)));
} else {
  const rounds = Number(arg("rounds") ?? 3);
  const store = arg("store")!;
  const sides = { old: arg("base")!, new: HERE };
  const runs: Record<string, Record<string, number>[]> = { old: [], new: [] };
  for (let r = 0; r < rounds; r++) {
    for (const name of (r % 2 ? ["new", "old"] : ["old", "new"]) as ("old" | "new")[]) {
      const cmd = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          "--unstable-kv",
          import.meta.filename!,
          `--code=${sides[name]}`,
          `--side=${store}`,
          ...Deno.args.filter((a) => a.startsWith("--only=")),
        ],
        stderr: "inherit",
      });
      const { stdout } = await cmd.output();
      const lines = new TextDecoder().decode(stdout).trim().split("\n");
      runs[name].push(JSON.parse(lines.at(-1)!));
      console.error(`round ${r + 1} ${name} done`);
    }
  }
  const rows = Object.keys(runs.old[0]).filter((row) => !row.includes(": "));
  for (const row of Object.keys(runs.old[0]).filter((row) => row.includes(": "))) {
    const seen = new Set([...runs.old, ...runs.new].map((o) => o[row]));
    if (seen.size !== 1) console.error(`DIFFERENT ${row}: ${[...seen].join(" / ")}`);
  }
  const fmt = (x: number) => x >= 100 ? x.toFixed(0) : x.toFixed(1);
  console.log(`| page of 15 (ms, median of ${rounds} rounds) | total | before | after |`);
  console.log("| --- | ---: | ---: | ---: |");
  for (const row of rows) {
    const m = (name: "old" | "new") => median(runs[name].map((o) => o[row]));
    const total = runs.old[0][`${row.replace(/, (first|then)$/, "")}: total`];
    console.log(`| ${row} | ${total} | ${fmt(m("old"))} | ${fmt(m("new"))} |`);
  }
}
