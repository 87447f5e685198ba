/**
 * Zipline's placeholders in people's text (`core/placeholders.ts`): known
 * names filled in, unknown ones left as written, values escaped for the
 * text's syntax when asked.
 */
import assert from "node:assert/strict";
import { escapeMarkdown, fillPlaceholders } from "../../core/placeholders.ts";

Deno.test("placeholders: known names are filled, any other stays as written", () => {
  const values = { "file.name": "a.png", "user.username": "ann" };
  assert.equal(
    fillPlaceholders(
      "{file.name} by {user.username}: {file.nope} {nope} {constructor.name}",
      values,
    ),
    "a.png by ann: {file.nope} {nope} {constructor.name}",
  );
});

Deno.test("placeholders: a value filled into Markdown reads as written", () => {
  const values = { "file.originalName": "*big* [day](x) <b>.png" };
  const filled = fillPlaceholders("**{file.originalName}**", values, escapeMarkdown);
  assert.equal(filled, "**\\*big\\* \\[day\\]\\(x\\) \\<b\\>.png**");
});
