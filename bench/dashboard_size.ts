/**
 * The dashboard's compressed script, page by page, read from the built
 * bundle as Ferry serves it (`findAsset`: gzip, level 9): what every page
 * loads first (the bundle's entry, the chunks it imports statically, the
 * frame's script), then each page's own chunks (`client/main.tsx` imports
 * every page dynamically), then what loads only when a page asks
 * (highlight.js, marked, DOMPurify, KaTeX, asciinema's player). Checks the
 * first load against the budget of issue #33 (at most 120 KB of compressed
 * script). No server, no browser: a second.
 *
 * `deno run -A --unstable-kv bench/dashboard_size.ts` writes
 * `bench/results/dashboard_size.md`; also `deno task bench dashboard_size`.
 */
import { join } from "node:path";
import { findAsset, loadChunks } from "../routes/web/assets.ts";
import { themeAsset } from "../routes/web/theme_css.ts";
import { REPO_ROOT } from "./helpers/server.ts";

// The chunks are loaded on first ask in a server; here every one is looked at.
await loadChunks();

/** The compressed script budget of a dashboard page's first load (issue #33), in bytes. */
export const SCRIPT_BUDGET = 120 * 1000;

const text = (name: string) => new TextDecoder().decode(findAsset(name)!.asset.body);
const gzipOf = (name: string) => findAsset(name)!.asset.gzip.byteLength;
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

/** The chunks `name` imports statically, and theirs (what loads with it, before it runs). */
export function staticChunks(name: string, seen = new Set<string>()): string[] {
  for (const match of text(name).matchAll(/(?:from|import)\s*"\.\/([\w.-]+\.js)"/g)) {
    if (seen.has(match[1])) continue;
    seen.add(match[1]);
    staticChunks(match[1], seen);
  }
  return [...seen].sort();
}

/** The chunks `name` imports dynamically, directly. */
function dynamicImports(name: string): string[] {
  return [...text(name).matchAll(/import\(\s*"\.\/([\w.-]+\.js)"\s*\)/g)].map((m) => m[1]);
}

/** The pages of `client/main.tsx`: page id and the source file it imports. */
async function pagesOfMain(): Promise<[string, string][]> {
  const main = await Deno.readTextFile(join(REPO_ROOT, "client/main.tsx"));
  return [
    ...main.matchAll(
      /"?([\w-]+)"?: \(\) =>\s*import\("\.\/pages\/([\w/]+)\.tsx"\)/g,
    ),
  ]
    .map((m) => [m[1], m[2].split("/").pop()!]);
}

/** What one page loads beyond the first load: its chunk and the chunks that chunk imports. */
function pageChunks(entry: string, source: string, first: Set<string>): string[] {
  const own = dynamicImports(entry).find((c) => c.startsWith(`${source}-`));
  if (!own) throw new Error(`no chunk for ${source} in ${entry}`);
  return [own, ...staticChunks(own)].filter((c) => !first.has(c));
}

/** Every chunk loaded on demand below the pages (code, Markdown, TeX, recordings), not counted above. */
function onDemand(pages: string[], counted: Set<string>): string[] {
  const all = new Set<string>();
  const walk = (file: string) => {
    for (const chunk of dynamicImports(file)) {
      if (all.has(chunk) || counted.has(chunk)) continue;
      all.add(chunk);
      for (const s of staticChunks(chunk)) if (!counted.has(s)) all.add(s);
      walk(chunk);
    }
  };
  for (const page of pages) walk(page);
  return [...all].sort();
}

/** The report: first load file by file, each page's chunks, on-demand chunks. */
export async function dashboardSizes(): Promise<string> {
  const firstScripts = ["dashboard.js", ...staticChunks("dashboard.js"), "ferry.js"];
  const first = new Set(firstScripts);
  const script = firstScripts.reduce((n, f) => n + gzipOf(f), 0);
  const styles: [string, number, number][] = [
    ["dashboard.css", findAsset("dashboard.css")!.asset.body.byteLength, gzipOf("dashboard.css")],
    ["ferry.css", findAsset("ferry.css")!.asset.body.byteLength, gzipOf("ferry.css")],
    ["themes.css (built-in themes)", themeAsset().body.byteLength, themeAsset().gzip.byteLength],
  ];
  const line = (name: string, kind: string) =>
    `| \`${name}\` | ${kind} | ${kib(findAsset(name)!.asset.body.byteLength)} | ${
      kib(gzipOf(name))
    } |`;
  const pages = await pagesOfMain();
  const pageRows: string[] = [];
  const pageFiles = new Set<string>();
  for (const [page, source] of pages) {
    const chunks = pageChunks("dashboard.js", source, first);
    chunks.forEach((c) => pageFiles.add(c));
    const own = chunks.reduce((n, c) => n + gzipOf(c), 0);
    pageRows.push(
      `| ${page} | \`${chunks[0]}\` + ${chunks.length - 1} shared | ${kib(own)} | ${
        kib(script + own)
      } |`,
    );
  }
  const lazy = onDemand([...pageFiles], new Set([...first, ...pageFiles]));
  return [
    "| file | kind | size | gzip |",
    "|---|---|---:|---:|",
    ...firstScripts.map((f) => line(f, f === "ferry.js" ? "frame script" : "script")),
    ...styles.map(([n, b, g]) => `| \`${n}\` | style | ${kib(b)} | ${kib(g)} |`),
    `| **script, first load** | | | **${kib(script)}** (${script} B; budget ${
      SCRIPT_BUDGET / 1000
    } KB: ${script <= SCRIPT_BUDGET ? "within" : "over"}) |`,
    `| script and style, first load | | | ${kib(script + styles.reduce((n, s) => n + s[2], 0))} |`,
    "",
    "Each page's own chunks (after the first load; a chunk two pages share is counted for each):",
    "",
    "| page | chunks | gzip | with the first load |",
    "|---|---|---:|---:|",
    ...pageRows,
    "",
    "Loaded on demand, when a page shows code, Markdown, TeX or a terminal recording (highlight.js,",
    "marked, DOMPurify, KaTeX, asciinema's player), and the file page's own entry:",
    "",
    "| file | kind | size | gzip |",
    "|---|---|---:|---:|",
    ...lazy.map((c) => line(c, "on demand")),
    line("text_view.js", "text page entry"),
  ].join("\n");
}

if (import.meta.main) {
  const report = `# Dashboard: compressed script per page

What a browser fetches for each dashboard page, read from the committed bundle
(\`routes/web/assets/\`, built by \`deno task bundle\`) and gzipped as Ferry serves it,
by \`bench/dashboard_size.ts\`. Every page first loads the bundle's entry \`dashboard.js\` with the
chunks it imports statically (Preact, the frame's toasts and modal) and the frame's script; the
page itself (\`client/main.tsx\` imports each page dynamically) then comes as its own chunk with
what it shares with other pages. uPlot is in a chunk the statistics page and the visits views
(\`client/components/visits.tsx\`, fetched when a visits dialog or the home page's summary shows)
share, never in a first load.
Budget (issue #33): at most 120 KB of compressed script on the first load.

${await dashboardSizes()}

Measured ${new Date().toISOString().slice(0, 10)}.
`;
  await Deno.writeTextFile(join(REPO_ROOT, "bench/results/dashboard_size.md"), report);
  console.log(report);
}
