/**
 * The map of `docs/architecture.md`, held by the code itself: no two modules
 * import each other (however long the circle), the wall clock is read only
 * by the real clock and the log line, and a backend names no cache.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/process.ts";

const SOURCES = ["main.ts", "cli", "core", "db", "routes", "storage", "client"];
const SKIPPED = new Set(["assets", "node_modules"]);

/** Every `.ts`/`.tsx` file under `paths`, relative to the repository. */
async function sources(...paths: string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const full = join(REPO_ROOT, path);
    if ((await Deno.stat(full)).isFile) {
      if (/\.tsx?$/.test(path)) found.push(path);
      return;
    }
    for await (const entry of Deno.readDir(full)) {
      if (!SKIPPED.has(entry.name)) await walk(join(path, entry.name));
    }
  };
  for (const path of paths) await walk(path);
  return found.sort();
}

/** The relative imports (static, dynamic and re-exports) of `file`, as repository paths. */
async function importsOf(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(REPO_ROOT, file));
  const specifiers = [
    ...text.matchAll(/(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']/gs),
    ...text.matchAll(/import\(\s*["'](\.[^"']+)["']\s*\)/g),
  ].map((m) => m[1]);
  return specifiers.map((s) => relative(REPO_ROOT, resolve(REPO_ROOT, dirname(file), s)));
}

Deno.test("layout: no two modules import each other, directly or round a circle", async () => {
  const files = await sources(...SOURCES);
  const graph = new Map<string, string[]>();
  for (const file of files) graph.set(file, await importsOf(file));
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): void => {
    const at = path.indexOf(file);
    assert.ok(at === -1, `an import circle: ${[...path.slice(at), file].join(" -> ")}`);
    if (done.has(file) || !graph.has(file)) return;
    path.push(file);
    for (const next of graph.get(file)!) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of files) visit(file);
});

Deno.test("layout: the wall clock is read only by the real clock and the log line", async () => {
  const readers = [];
  for (const file of await sources("db", "core", "routes")) {
    const text = await Deno.readTextFile(join(REPO_ROOT, file));
    if (/Date\.now\b/.test(text)) readers.push(file);
  }
  assert.deepEqual(readers, ["core/clock.ts", "core/log.ts"]);
});

Deno.test("layout: a backend only stores: no backend file names a cache", async () => {
  const named = [];
  for (const file of await sources("db/kv", "db/postgres")) {
    const text = await Deno.readTextFile(join(REPO_ROOT, file));
    if (/cache|\.written\(/i.test(text)) named.push(file);
  }
  assert.deepEqual(named, []);
});
