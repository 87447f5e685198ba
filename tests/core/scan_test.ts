/** The streaming JSON reader of imports: values cut out whole, every byte checked, any chunking. */
import assert from "node:assert/strict";
import { JsonScanner, JsonSyntaxError } from "../../core/transfer/scan.ts";

const DOC = JSON.stringify(
  {
    versions: { export: "4" },
    data: {
      files: [{ id: "a", name: 'ü "q" \\ }]', size: 12.5e2 }, { id: "b", tags: [[], {}] }],
      empty: [],
      n: -0.5,
      flag: true,
      nothing: null,
    },
    extra: "x",
  },
  null,
  1,
);

/** Scans `text` in chunks of `size` bytes; returns the values and the shapes seen. */
function scan(text: string | Uint8Array, size: number) {
  const values: [string, unknown][] = [];
  const shapes: [string, string][] = [];
  const walked = new Set(["", "data", "data.files"]);
  const scanner = new JsonScanner({
    walk: (path) => walked.has(path.join(".")),
    begin: (path, shape) => shapes.push([path.join("."), shape]),
    value: (path, value) => values.push([path.join("."), value]),
  });
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  for (let i = 0; i < bytes.length; i += size) scanner.write(bytes.subarray(i, i + size));
  scanner.end();
  return { values, shapes };
}

Deno.test("scan: walked containers give their values whole, whatever the chunk size", () => {
  const expected = JSON.parse(DOC);
  for (const size of [1, 2, 3, 7, 64, 1 << 20]) {
    const { values, shapes } = scan(DOC, size);
    assert.deepEqual(values, [
      ["versions", expected.versions],
      ["data.files.0", expected.data.files[0]],
      ["data.files.1", expected.data.files[1]],
      ["data.empty", []],
      ["data.n", -0.5],
      ["data.flag", true],
      ["data.nothing", null],
      ["extra", "x"],
    ], `chunks of ${size}`);
    assert.deepEqual(shapes.slice(0, 4), [
      ["", "object"],
      ["versions", "object"],
      ["data", "object"],
      ["data.files", "array"],
    ]);
  }
});

Deno.test("scan: any fault is a JsonSyntaxError", () => {
  const bad = [
    '{"a":1,}',
    '{"a" 1}',
    '{"a":1 "b":2}',
    '{"data":{"files":[1,]}}',
    '{"data":{"files":[tru]}}',
    '{"versions":{"x":}}',
    '{"a":1}}',
    '{"a":1} x',
    "{a:1}",
    '{"a":"\u0001"}',
  ];
  for (const text of bad) {
    assert.throws(() => scan(text, 3), JsonSyntaxError, text);
  }
  for (const text of ['{"a":1', '{"data":{"files":[{"a":', '"abc']) {
    assert.throws(() => scan(text, 3), JsonSyntaxError, text);
  }
  const broken = new Uint8Array([...new TextEncoder().encode('{"x":"'), 0xff, 0x22, 0x7d]);
  assert.throws(() => scan(broken, 2), JsonSyntaxError, "not UTF-8");
});
