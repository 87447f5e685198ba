/**
 * Tag pages of the files list on PostgreSQL, in-process (issue #32): one
 * user's files (`bench/scale.ts`'s shape: 5 types in turn, 1 in 20 a
 * favourite, 1 in 50 in a folder) carrying four tags — `small` 1 in 200,
 * `large` 1 in 5, `seventh` 1 in 7, `half` 1 in 2, by a hash of the file's
 * number (independent of each other and of the other filters) — so that one tag is read
 * at 5,000 and at 200,000 files of a million, with another filter, and two
 * tags with a small (`small`+`seventh`, 1 in 1,400) and a large
 * (`large`+`seventh`, 1 in 35) intersection.
 *
 * `--build --url=<database> --files=<n>` fills an empty database (migrated
 * by opening the store) with rows written by SQL (`generate_series`, the
 * statistics and counters kept by the triggers as for any insert; far
 * faster than `createMany` at a million) and writes its facts to
 * `--facts=<file>`. `--measure --url=… --facts=…` opens the store (its
 * migrations run first: time it apart with `--migrate`), asks each list
 * once (the first after a start) and {@link REPEATS} more times, then the
 * writes the links' keys cost, and prints a Markdown table of the first and
 * the median, in ms. Old code against new: run the same file from a copy of
 * the other checkout (`git archive`), each over its own copy of the database
 * (`CREATE DATABASE … TEMPLATE …`), alternated.
 */
import postgres from "postgres";
import type { FileQuery } from "../db/files.ts";
import { openPostgresStore } from "../db/postgres/mod.ts";
import { populateUsers } from "./helpers/users.ts";
import { benchFile } from "./scale.ts";

/** After the first ask of a list, how many more give its median. */
const REPEATS = 5;
/** Each tag's share of the files: file `i` carries the tag when `i % every === 0`. */
const TAGS = { small: 200, large: 5, seventh: 7, half: 2 } as const;
type TagName = keyof typeof TAGS;

/** The database's facts the builder wrote. */
interface Facts {
  userId: string;
  folderId: string;
  files: number;
  tags: Record<TagName, string>;
  /** How many files carry each tag. */
  tagged: Record<TagName, number>;
}

const args = Object.fromEntries(
  Deno.args.map((a) => a.replace(/^--/, "").split("=")).map(([k, v]) => [k, v ?? "true"]),
);

async function build(url: string, n: number): Promise<Facts> {
  const store = await openPostgresStore(url);
  const [user] = await populateUsers(store, 1);
  const now = Date.now();
  const folderId = `folder-${now}`;
  await store.folders.create({
    id: folderId,
    name: "bench",
    public: false,
    allowUploads: false,
    parentId: null,
    userId: user.id,
    createdAt: new Date(now),
    updatedAt: new Date(now),
  });
  const tags = {} as Record<TagName, string>;
  const tagged = {} as Record<TagName, number>;
  for (const name of Object.keys(TAGS) as TagName[]) {
    tags[name] = `tag-${name}-${now}`;
    await store.tags.create({
      id: tags[name],
      name,
      color: "#123456",
      userId: user.id,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    });
  }
  await store.close();
  const sql = postgres(url, { onnotice: () => {} });
  const STEP = 50_000;
  const started = performance.now();
  for (let a = 0; a < n; a += STEP) {
    const b = Math.min(n, a + STEP) - 1;
    await sql`INSERT INTO files (id, name, original_name, size, type, views, favorite, anonymous,
        user_id, folder_id, pending, private, created_at, updated_at)
      SELECT 'f' || lpad(to_hex(i), 8, '0'), left(md5(i::text), 14) || '.' || split_part(t, '/', 2),
        'holiday-' || i || '.' || split_part(t, '/', 2), 1000 + (i::bigint * 7919) % 5000000, t, i % 13,
        i % 20 = 0, false, ${user.id}, CASE WHEN i % 50 = 0 THEN ${folderId} END, false, false,
        to_timestamp(${Math.floor(now / 1000)}::bigint - (${n} - i)),
        to_timestamp(${Math.floor(now / 1000)}::bigint - (${n} - i))
      FROM generate_series(${a}::int, ${b}::int) AS i,
        LATERAL (SELECT (ARRAY['image/png', 'image/jpeg', 'text/plain', 'video/mp4',
          'application/pdf'])[i % 5 + 1] AS t) AS ty`;
    console.log(`  ${b + 1} files, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await sql`INSERT INTO file_usage (user_id, bytes, files)
    SELECT ${user.id}, sum(size), count(*) FROM files WHERE user_id = ${user.id}`;
  for (const [name, every] of Object.entries(TAGS) as [TagName, number][]) {
    const t = performance.now();
    // A hash of the file's number, so that the tags are independent of each other and of the
    // favourites, types and folder (which follow the number).
    const [{ count }] = await sql<{ count: number }[]>`WITH links AS (
        INSERT INTO file_tags (file_id, tag_id)
        SELECT 'f' || lpad(to_hex(i), 8, '0'), ${tags[name]}
        FROM generate_series(0, ${n - 1}::int) AS i
        WHERE abs(hashtext(${name} || i)) % ${every}::int = 0 RETURNING 1
      ) SELECT count(*)::int AS count FROM links`;
    tagged[name] = count;
    const s = ((performance.now() - t) / 1000).toFixed(1);
    console.log(`  tag ${name} (1 in ${every}): ${count} files, ${s} s`);
  }
  await sql.unsafe("VACUUM (ANALYZE)");
  await sql.end();
  return { userId: user.id, folderId, files: n, tags, tagged };
}

/** The lists asked: label and query (15 a page). */
function asks(f: Facts): { label: string; q: FileQuery }[] {
  const list: { label: string; q: FileQuery }[] = [];
  const q = (tagIds: string[], extra: Partial<FileQuery>, offset: number): FileQuery => ({
    userId: f.userId,
    sortBy: "createdAt",
    order: "desc",
    offset,
    limit: 15,
    tagIds,
    ...extra,
  });
  const middle = (of: number) => Math.floor(of / 2 / 15) * 15;
  for (const name of ["small", "large"] as const) {
    const tagged = f.tagged[name];
    const tag = [f.tags[name]];
    const label = `${name} tag (${tagged})`;
    list.push({ label: `${label}, newest first, page 1`, q: q(tag, {}, 0) });
    list.push({ label: `${label}, newest first, the middle`, q: q(tag, {}, middle(tagged)) });
    list.push({ label: `${label}, newest first, a quarter in`, q: q(tag, {}, middle(tagged / 2)) });
    list.push({ label: `${label}, newest first, the last`, q: q(tag, {}, tagged - 15) });
    for (const [sortBy, order] of [["name", "asc"], ["size", "desc"], ["views", "desc"]] as const) {
      list.push({
        label: `${label}, ${sortBy} ${order}, the middle`,
        q: q(tag, { sortBy, order }, middle(tagged)),
      });
    }
    const filters: [string, Partial<FileQuery>, number][] = [
      ["favourites", { favorite: true }, tagged / 20],
      ["dashboard types", { typePrefixes: ["image/", "video/", "audio/", "text/"] }, tagged * 0.8],
      ["the folder", { folderId: f.folderId }, tagged / 50],
    ];
    for (const [what, extra, about] of filters) {
      list.push({ label: `${label} + ${what}, page 1`, q: q(tag, extra, 0) });
      list.push({ label: `${label} + ${what}, the middle`, q: q(tag, extra, middle(about)) });
    }
  }
  const pairs: [string, TagName, TagName, number][] = [
    ["small ∩ seventh", "small", "seventh", 1400],
    ["large ∩ seventh", "large", "seventh", 35],
    ["large ∩ half", "large", "half", 10],
  ];
  for (const [label, a, b, every] of pairs) {
    const tagIds = [f.tags[a], f.tags[b]];
    const both = Math.round(f.files / every);
    list.push({ label: `two tags, ${label} (~${both}), page 1`, q: q(tagIds, {}, 0) });
    list.push({ label: `two tags, ${label}, the middle`, q: q(tagIds, {}, middle(both)) });
  }
  return list;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => x < 10 ? x.toFixed(1) : x.toFixed(0);

async function measure(url: string, f: Facts) {
  const opened = performance.now();
  const store = await openPostgresStore(url);
  console.log(`store opened (migrations) in ${ms(performance.now() - opened)} ms`);
  console.log("| list | files, total | first | median |\n| --- | ---: | ---: | ---: |");
  for (const { label, q } of asks(f)) {
    const times: number[] = [];
    let shown = "";
    for (let i = 0; i <= REPEATS; i++) {
      const t = performance.now();
      const page = await store.files.list(q);
      times.push(performance.now() - t);
      shown = `${page.files.length}, ${page.total}`;
    }
    console.log(`| ${label} | ${shown} | ${ms(times[0])} | ${ms(median(times.slice(1)))} |`);
  }
  await writes(store, f);
  await store.close();
}

/**
 * The writes the links' keys cost (migration 047's triggers): an import's
 * run of 1,000 new files, a file tagged and untagged, a view of a tagged
 * and of an untagged file; the median of {@link REPEATS} after a first.
 */
async function writes(store: Awaited<ReturnType<typeof openPostgresStore>>, f: Facts) {
  const timed = async (label: string, write: (i: number) => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i <= REPEATS; i++) {
      const t = performance.now();
      await write(i);
      times.push(performance.now() - t);
    }
    console.log(`| ${label} | | ${ms(times[0])} | ${ms(median(times.slice(1)))} |`);
  };
  const stamp = Date.now();
  await timed(
    "write: createMany of 1,000 new files",
    (run) =>
      store.files.createMany(Array.from({ length: 1000 }, (_, i) => ({
        ...benchFile(f.userId, i, 1000, stamp, { folderId: f.folderId }),
        id: `w${stamp}-${run}-${i}`,
        name: `w${stamp}-${run}-${i}.png`,
      }))),
  );
  const untagged = `w${stamp}-0-0`;
  await timed("write: a file tagged, then untagged", async () => {
    await store.tags.setFileTags(untagged, [f.tags.small]);
    await store.tags.setFileTags(untagged, []);
  });
  const tagged = (await store.files.list({
    userId: f.userId,
    sortBy: "createdAt",
    order: "desc",
    offset: 0,
    limit: 1,
    tagIds: [f.tags.large],
  })).files[0].id;
  await timed("write: a view of a tagged file", () => store.files.addView(tagged));
  await timed("write: a view of a file", () => store.files.addView(untagged));
}

if (import.meta.main) {
  const url = args.url;
  if (args.build) {
    const facts = await build(url, Number(args.files ?? 1_000_000));
    await Deno.writeTextFile(args.facts, JSON.stringify(facts));
  }
  if (args.measure) await measure(url, JSON.parse(await Deno.readTextFile(args.facts)));
}
