/**
 * The soak, 30 s long (`bench/soak.ts` runs it for five minutes): three
 * instances on PostgreSQL and S3 behind a balancer, under load while an
 * instance is killed, PostgreSQL restarted, S3 made unreachable and a disk
 * filled. Nothing accepted may be lost; every promise the checks name holds.
 */
import assert from "node:assert/strict";
import { skipWithout } from "../helpers/services.ts";
import { runSoak } from "../helpers/soak/run.ts";

Deno.test({
  name: "e2e: 30 s soak with faults loses nothing and answers clearly while broken",
  ignore: skipWithout("postgres") || skipWithout("s3"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const result = await runSoak({ durationMs: 30_000, chunkedMib: [8, 24], workers: 4 });
    const { recorder, checked } = result;
    if (recorder.problems.length) console.error(recorder.notes.join("\n"));
    assert.deepEqual(recorder.problems, [], recorder.problems.join("\n"));
    assert.ok(checked.accepted > 0, "some uploads were accepted");
    assert.equal(checked.acceptedFound, checked.accepted);
    const faults = result.faults.map((f) => f.name);
    for (const fault of ["instance 1 killed", "postgres down", "v4 import", "s3 unreachable"]) {
      assert.ok(faults.includes(fault), `${fault} was injected`);
    }
    assert.ok(result.rateProbes.length >= 3);
  },
});
