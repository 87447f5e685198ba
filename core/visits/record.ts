/**
 * Whether and how a visit is recorded: analytics on (`analyticsEnabled`),
 * and not refused by the visitor (`DNT: 1` or `Sec-GPC: 1`) while
 * `analyticsHonorDoNotTrack` is on. Called where a view is counted (short
 * URL redirects, fast or not; file bytes at `/u` and `/raw`; the file page
 * `/view/<name>`, whose own requests for its bytes are not counted again;
 * share links' files), it costs a few header and settings reads and an array
 * push: the rest happens in the batch (`recorder.ts`).
 */
import type { Services } from "../services.ts";
import {
  type VisitRecorder,
  visitRecorder,
  type VisitSource,
  type VisitTarget,
} from "./recorder.ts";

/** A visit's source as a request gives it, with the visitor's privacy signals. */
export interface VisitSignals extends VisitSource {
  /** `DNT: 1` or `Sec-GPC: 1` was sent. */
  optOut: boolean;
  /**
   * The request comes from this server's own file page (`/view/<name>`, which
   * fetches its file's bytes): that page's visit was recorded already.
   */
  fromViewPage: boolean;
}

/**
 * The {@link VisitSignals} of `request`, sent from `ip` (read after the
 * headers' list: the address may be a header, `X-Forwarded-For`).
 */
export function visitSignals(request: Request, ip: () => string): VisitSignals {
  const { headers } = request;
  // Deno.serve reads a request's header one call into the runtime a name until
  // the whole list is read, which `has` does (and a response does anyway once
  // the headers were looked at): one call for the four reads below and for
  // the address (a trusted proxy's `X-Forwarded-For`), read after it.
  headers.has("dnt");
  const referer = headers.get("referer");
  return {
    ip: ip(),
    ua: headers.get("user-agent") ?? "",
    referer,
    optOut: headers.get("dnt") === "1" || headers.get("sec-gpc") === "1",
    fromViewPage: referer !== null && referer.includes("/view/") &&
      ownViewPage(referer, request.url),
  };
}

/** Whether `referer` is a `/view/` page on the host `url` was sent to. */
function ownViewPage(referer: string, url: string): boolean {
  try {
    const from = new URL(referer);
    return from.pathname.startsWith("/view/") && from.host === new URL(url).host;
  } catch {
    return false;
  }
}

/** Records a visit of `target` by `signals` (lazily read), when the settings and the visitor allow. */
export function recordVisit(
  s: Services,
  target: VisitTarget,
  signals: (() => VisitSignals) | undefined,
): void {
  if (signals === undefined || !s.settings.get("analyticsEnabled")) return;
  const seen = signals();
  if (seen.fromViewPage) return;
  if (seen.optOut && s.settings.get("analyticsHonorDoNotTrack")) return;
  visitRecorder(s).record(target, seen.ip, seen.ua, seen.referer);
}

/** Writes the visits this instance still holds (shutdown, exports). */
export async function flushVisits(s: Services): Promise<void> {
  await visitRecorder(s).flush();
}

/** Writes what waits and stops the buffer's ticking: before the store closes. */
export async function closeVisits(s: Services): Promise<void> {
  await visitRecorder(s).close();
}

/**
 * Deletes a target's visits and roll-up (its link or file was deleted),
 * those still waiting in this instance's buffer included.
 */
export async function dropVisits(s: Services, target: VisitTarget): Promise<void> {
  const recorder: VisitRecorder = visitRecorder(s);
  await recorder.forget(target.kind, target.id);
  await s.store.visits.deleteTarget(target.kind, target.id, target.ownerId);
}

/** {@link dropVisits} of many files at once (a bulk delete): a few statements a batch. */
export async function dropFileVisits(
  s: Services,
  files: { id: string; userId: string | null }[],
): Promise<void> {
  const recorder: VisitRecorder = visitRecorder(s);
  await Promise.all(files.map((f) => recorder.forget("file", f.id)));
  const targets = files.map((f) => ({ id: f.id, ownerId: f.userId }));
  await s.store.visits.deleteTargets("file", targets);
}
