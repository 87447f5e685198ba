/** The one size parser and the one duration parser. */
import assert from "node:assert/strict";
import { parseDuration } from "../../core/units/duration.ts";
import { parseSize } from "../../core/units/size.ts";

Deno.test("parseSize: binary units like the bytes package, bare numbers are bytes", () => {
  const cases: [string, number][] = [
    ["1024", 1024],
    ["0", 0],
    ["1b", 1],
    ["1kb", 1024],
    ["1KB", 1024],
    ["100mb", 100 * 1024 ** 2],
    ["1.5 GB", 1.5 * 1024 ** 3],
    [" 2tb ", 2 * 1024 ** 4],
    ["1pb", 1024 ** 5],
    [".5kb", 512],
    ["1.7b", 1],
    ["-1mb", -(1024 ** 2)],
  ];
  for (const [input, bytes] of cases) assert.equal(parseSize(input), bytes, input);
});

Deno.test("parseSize: anything else is null", () => {
  for (const input of ["", "mb", "1 m", "1xb", "one mb", "1e3", "1,5mb", "1mb2", "99999999pb"]) {
    assert.equal(parseSize(input), null, input);
  }
});

Deno.test("parseDuration: the ms package's grammar", () => {
  const cases: [string, number][] = [
    ["500", 500],
    ["500ms", 500],
    ["1s", 1000],
    ["1.5s", 1500],
    ["30m", 30 * 60_000],
    ["1h", 3_600_000],
    ["1 hour", 3_600_000],
    ["2 hrs", 7_200_000],
    ["7d", 7 * 86_400_000],
    ["30d", 30 * 86_400_000],
    ["1 day", 86_400_000],
    ["2 Days", 2 * 86_400_000],
    ["1w", 7 * 86_400_000],
    ["1y", 365.25 * 86_400_000],
    ["10 minutes", 600_000],
    ["-1h", -3_600_000],
    [".5m", 30_000],
  ];
  for (const [input, ms] of cases) assert.equal(parseDuration(input), ms, input);
});

Deno.test("parseDuration: anything else is null", () => {
  for (const input of ["", "h", "1 fortnight", "1hh", "1h30m", "one day", "1".repeat(101)]) {
    assert.equal(parseDuration(input), null, input);
  }
});
