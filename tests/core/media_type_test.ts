/** The normalising of claimed media types and the passive list (`core/files/media_type.ts`). */
import assert from "node:assert/strict";
import { isPassiveType, normalizeType, storedType } from "../../core/files/media_type.ts";

Deno.test("security #1: a claimed type is one lowercase type/subtype, or nothing", () => {
  const cases: [string, string | null][] = [
    ["image/png", "image/png"],
    ["IMAGE/PNG", "image/png"],
    [" image/Svg+xml ", "image/svg+xml"],
    ["text/plain; charset=UTF-8", "text/plain; charset=utf-8"],
    ['text/html;charset="utf-8"', "text/html; charset=utf-8"],
    ["image/png; name=x.png", "image/png"],
    ["image/png;", "image/png"],
    ["image/png; charset=utf-8", "image/png"],
    ["image/png,text/html", null],
    ["image/png; x=text/html", null],
    ["image/png text/html", null],
    ["image/", null],
    ["a/b/c", null],
    ["", null],
    ["text/plain; charset=<x>", null],
  ];
  for (const [input, expected] of cases) assert.equal(normalizeType(input), expected, input);
  assert.equal(storedType("image/png,text/html"), "application/octet-stream");
});

Deno.test("security #1: only images other than SVG, audio, video, PDF and plain text are passive", () => {
  for (const type of ["image/png", "image/jpeg", "video/mp4", "audio/mpeg", "application/pdf"]) {
    assert.ok(isPassiveType(type), type);
  }
  assert.ok(isPassiveType("text/plain; charset=utf-8"));
  const active = [
    "image/svg+xml",
    "text/html",
    "application/xhtml+xml",
    "application/xml",
    "text/xml",
    "text/javascript",
    "application/octet-stream",
    "font/woff2",
  ];
  for (const type of active) assert.ok(!isPassiveType(type), type);
});
