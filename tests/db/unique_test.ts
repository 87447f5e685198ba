/** `uniqueViolation`: PostgreSQL's unique violations become `UniqueError`, anything else passes. */
import assert from "node:assert/strict";
import { uniqueViolation } from "../../db/postgres/unique.ts";
import { UniqueError } from "../../db/errors.ts";

/** An error shaped as postgres.js raises a server error. */
const pgError = (code: string, constraint_name?: string) =>
  Object.assign(new Error("server error"), { code, constraint_name });

Deno.test("uniqueViolation: a unique violation names the given field", () => {
  const mapped = uniqueViolation(pgError("23505", "tags_name_key"), "name");
  assert.ok(mapped instanceof UniqueError);
  assert.equal(mapped.field, "name");
});

Deno.test("uniqueViolation: a field chosen from the violated constraint", () => {
  const seen: (string | undefined)[] = [];
  const field = (constraint: string | undefined) => (seen.push(constraint), constraint ?? "id");
  assert.equal(
    (uniqueViolation(pgError("23505", "files_name_key"), field) as UniqueError).field,
    "files_name_key",
  );
  assert.equal((uniqueViolation(pgError("23505"), field) as UniqueError).field, "id");
  assert.deepEqual(seen, ["files_name_key", undefined]);
});

Deno.test("uniqueViolation: any other error is returned unchanged", () => {
  for (const error of [pgError("23503", "fk"), new Error("plain"), null, undefined, "text"]) {
    assert.equal(uniqueViolation(error, "name"), error);
  }
});
