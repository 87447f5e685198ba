/**
 * Guesses at a file's or a short URL's password (spec §4.5, §8.1): every way
 * of presenting one (the password routes, `?pw=`, the `file_pw_<id>` and
 * `url_pw_<id>` cookies) counts against one limit, 2 attempts a second per
 * client IP and target, before anything is checked, and each checked attempt
 * is logged with the target's name, the IP, the user agent, the time and the
 * outcome. The limit follows `ratelimitEnabled` and the allow list's IPs.
 */
import { countRequest } from "./rate_limit.ts";
import type { Services } from "./services.ts";

/** What a password is presented for. */
export interface AttemptTarget {
  kind: "file" | "url" | "share" | "request";
  id: string;
  /** The file name, the URL's vanity or code, or the share's id: what the log names. */
  name: string;
}

/** Who presents it, for the limit and the log. */
export interface Attempt {
  ip: string;
  ua: string;
}

/** Attempts allowed per second for one client IP and target. */
export const ATTEMPTS_PER_SECOND = 2;

/**
 * Checks a presented password with `check`, counted against the limit first
 * (past it, the 429 and no check at all) and logged after; whether it held.
 */
export async function tryPassword(
  s: Services,
  target: AttemptTarget,
  attempt: Attempt,
  check: () => Promise<boolean>,
): Promise<boolean> {
  await limitAttempt(s, target, attempt);
  const success = await check();
  logAttempt(s, target, attempt, success);
  return success;
}

/**
 * Counts and logs a proof of access that holds no grant (a forged, guessed or
 * stale cookie) as a failed attempt; the 429 past the limit.
 */
export async function refuseProof(
  s: Services,
  target: AttemptTarget,
  attempt: Attempt,
): Promise<void> {
  await limitAttempt(s, target, attempt);
  logAttempt(s, target, attempt, false);
}

async function limitAttempt(s: Services, target: AttemptTarget, attempt: Attempt) {
  const settings = s.settings.all();
  if (!settings.ratelimitEnabled || settings.ratelimitAllowList.includes(attempt.ip)) return;
  const key = `password|${target.kind}|${target.id}|${attempt.ip}`;
  await countRequest(s, key, ATTEMPTS_PER_SECOND, 1000);
}

function logAttempt(s: Services, target: AttemptTarget, attempt: Attempt, success: boolean) {
  s.logger.info(`${target.kind} password attempt`, {
    [target.kind]: target.name,
    id: target.id,
    ip: attempt.ip,
    ua: attempt.ua,
    at: new Date(s.clock.now()).toISOString(),
    success,
  });
}
