/**
 * The text upload's language list and the highlighting helpers: the list is
 * highlight.js's own (regenerate with `deno run -A tools/languages.ts`), and a
 * file's name or type finds its language through highlight.js's aliases.
 */
import assert from "node:assert/strict";
import { LANGUAGES } from "../../client/text/languages.ts";
import {
  extensionOf,
  isAsciicast,
  isMarkdown,
  isTex,
  languageId,
  languageOf,
} from "../../client/text/kind.ts";
import { isCastText, TEX_BLOCKS, TEX_LIMIT, texBlocks } from "../../client/text/formats.ts";
import { indent } from "../../client/text/indent.ts";
import { languageRows } from "../../tools/languages.ts";

Deno.test("client: the language list is highlight.js's, with its common build marked", async () => {
  assert.deepEqual(LANGUAGES, await languageRows(), "stale: run `deno run -A tools/languages.ts`");
  assert.ok(LANGUAGES.length > 150);
  assert.equal(LANGUAGES.filter((row) => row[3]).length, 36);
});

Deno.test("client: a file's language comes from its extension, then its type", () => {
  assert.equal(languageOf("hello.ts", "text/plain"), "typescript");
  assert.equal(languageOf("main.rs", "text/plain"), "rust");
  assert.equal(languageOf("Makefile.mk", "text/plain"), "makefile");
  assert.equal(languageOf("query.sql", "text/plain"), "sql");
  assert.equal(languageOf("notes", "text/x-python"), "python");
  assert.equal(languageOf("notes.txt", "text/plain"), null);
  assert.equal(languageOf("a.unknownext", "application/octet-stream"), null);
  assert.equal(languageId("plaintext"), null);
  assert.equal(languageId("JS"), "javascript");
  assert.equal(extensionOf("typescript"), "ts");
  assert.equal(extensionOf("python"), "py");
  assert.ok(isMarkdown("README.md", "text/plain"));
  assert.ok(isMarkdown("notes", "text/markdown"));
  assert.ok(!isMarkdown("notes.txt", "text/plain"));
});

Deno.test("client: Tab indents at the caret or every selected line, Shift+Tab outdents", () => {
  assert.deepEqual(indent("ab", 1, 1), { text: "a  b", start: 3, end: 3 });
  const two = "one\ntwo\nthree";
  assert.deepEqual(indent(two, 1, 6), { text: "  one\n  two\nthree", start: 3, end: 10 });
  assert.deepEqual(indent("  one\n  two", 3, 9, true), { text: "one\ntwo", start: 1, end: 5 });
  assert.deepEqual(indent("  one", 4, 4, true), { text: "one", start: 2, end: 2 });
});

Deno.test("client: TeX and asciinema recordings are told by name or type, as Zipline tells them", () => {
  assert.ok(isTex("euler.tex", "text/plain"));
  assert.ok(isTex("notes", "application/x-latex"));
  assert.ok(!isTex("notes.txt", "text/plain"));
  assert.ok(isAsciicast("demo.cast", "application/octet-stream"));
  assert.ok(isAsciicast("demo", "application/x-asciicast"));
  assert.ok(!isAsciicast("demo.txt", "text/plain"));
  assert.equal(languageOf("euler.tex", "text/x-tex"), "latex", "its source highlights as LaTeX");
});

Deno.test("client: KaTeX gets a file's paragraphs, within bounds", () => {
  assert.deepEqual(texBlocks("a^2\n\n  \nb_1 \n+ c\n"), ["a^2", "b_1 \n+ c"]);
  assert.throws(() => texBlocks("x".repeat(TEX_LIMIT + 1)), /too long/);
  assert.throws(() => texBlocks(Array(TEX_BLOCKS + 1).fill("x").join("\n\n")), /too many/);
});

Deno.test("client: an asciicast starts with its versioned header (v2, v3) or is one document (v1)", () => {
  assert.ok(isCastText('{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "hi"]\n'));
  assert.ok(isCastText('{"version": 3, "term": {"cols": 80, "rows": 24}}\n'));
  assert.ok(isCastText('{"version": 1, "width": 80, "height": 24, "stdout": [[0.1, "hi"]]}'));
  assert.ok(!isCastText("hello\n"));
  assert.ok(!isCastText('{"version": 9}\n'));
  assert.ok(!isCastText('["not", "a header"]\n'));
});
