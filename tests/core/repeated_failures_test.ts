/** Timer-driven work logs an outage once and its end once, not a line per try. */
import assert from "node:assert/strict";
import { MemoryLogger, RepeatedFailures } from "../../core/log.ts";

Deno.test("a run of failures is one error line, then one line when it recovers with their count", () => {
  const logger = new MemoryLogger();
  const failures = new RepeatedFailures(logger);
  failures.succeeded("webhook worker failed");
  for (let i = 0; i < 5; i++) failures.failed("webhook worker failed", new Error("db down"));
  failures.succeeded("webhook worker failed");
  failures.succeeded("webhook worker failed");
  failures.failed("webhook worker failed", new Error("again"));
  assert.deepEqual(logger.lines.map((l) => [l.level, l.message, l.fields]), [
    ["error", "webhook worker failed", { error: new Error("db down") }],
    ["info", "webhook worker failed: recovered", { failures: 5 }],
    ["error", "webhook worker failed", { error: new Error("again") }],
  ]);
});
