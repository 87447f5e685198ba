/** Waiting for work a request left running in the background (queued webhooks, exports). */

/**
 * Resolves once `check` resolves truthy, polling every 20 ms; rejects with
 * `what` after `timeoutMs`. For effects a request starts but does not await.
 */
export async function eventually(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
