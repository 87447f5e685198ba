/// <reference lib="dom" />
/**
 * Syntax highlighting for the text preview: highlight.js's core with the
 * languages people share most, chosen by the file's extension or type (never
 * guessed from content, which is slow on big files). Its output escapes the
 * text; only its own `<span class="hljs-…">` markup is added.
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Extensions (and a few MIME subtypes) to the language that reads them. */
const BY_EXTENSION: Record<string, keyof typeof LANGUAGES> = {
  sh: "bash",
  bash: "bash",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  hpp: "cpp",
  css: "css",
  go: "go",
  java: "java",
  js: "javascript",
  mjs: "javascript",
  javascript: "javascript",
  json: "json",
  md: "markdown",
  markdown: "markdown",
  py: "python",
  "x-python": "python",
  rs: "rust",
  sql: "sql",
  ts: "typescript",
  tsx: "typescript",
  typescript: "typescript",
  html: "xml",
  xml: "xml",
  svg: "xml",
  yml: "yaml",
  yaml: "yaml",
};

/** The language of a file called `name` of MIME `type`, or `null` for plain text. */
export function languageOf(name: string, type: string): string | null {
  const extension = name.includes(".") ? name.split(".").pop()!.toLowerCase() : "";
  return BY_EXTENSION[extension] ?? BY_EXTENSION[type.split("/")[1] ?? ""] ?? null;
}

/** `text` as highlighted HTML in `language`. */
export function highlight(text: string, language: string): string {
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}
