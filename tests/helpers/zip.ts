/**
 * Reading zip archives in tests with independent readers: Python's `zipfile`
 * (the entries, their bytes and CRCs checked) and Info-ZIP's `unzip -t`.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";

/** An archive as a reader saw it: each entry's name and, for a file, its bytes' SHA-256. */
export type Listing = Record<string, string>;

const READER = `
import hashlib, json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    if bad: sys.exit("bad CRC: " + bad)
    print(json.dumps({i.filename: "dir" if i.is_dir() else hashlib.sha256(z.read(i)).hexdigest()
                      for i in z.infolist()}))
`;

/** The SHA-256 of `bytes`, as {@link Listing} has it. */
export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Writes `archive` to a temp file, lists it with Python's `zipfile` (every
 * CRC tested) and tests it with `unzip -t`; returns the listing.
 */
export async function readZip(archive: Uint8Array | ReadableStream<Uint8Array>): Promise<Listing> {
  const path = await Deno.makeTempFile({ suffix: ".zip" });
  try {
    if (archive instanceof Uint8Array) await Deno.writeFile(path, archive);
    else await Deno.writeFile(path, archive);
    const python = await new Deno.Command("python3", { args: ["-c", READER, path] }).output();
    assert.equal(python.code, 0, new TextDecoder().decode(python.stderr));
    const listing: Listing = JSON.parse(new TextDecoder().decode(python.stdout));
    // unzip calls an empty archive an error (exit 1); it tests the others.
    if (Object.keys(listing).length === 0) return listing;
    const unzip = await new Deno.Command("unzip", { args: ["-tq", path] }).output();
    assert.equal(unzip.code, 0, new TextDecoder().decode(unzip.stdout));
    return listing;
  } finally {
    await Deno.remove(path);
  }
}
