/** Visits for the visit store's tests: a time ahead of any test clock, and visits built from it. */
import type { VisitRecord, VisitTargetKind } from "../../db/visits.ts";

/** The top of an hour, ahead of any test clock. */
export const VISIT_START = Date.UTC(2027, 2, 10, 10, 0, 0);

/** A visit of `target` at `VISIT_START + minutes` by `visitor`, from a desktop browser with no details; the rest as `extra` says. */
export function visitAt(
  target: { kind: VisitTargetKind; id: string },
  minutes: number,
  visitor: string,
  extra: Partial<VisitRecord> = {},
): VisitRecord {
  return {
    targetKind: target.kind,
    targetId: target.id,
    ownerId: "owner-a",
    at: new Date(VISIT_START + minutes * 60_000),
    referrer: null,
    country: null,
    browser: null,
    os: null,
    device: "desktop",
    bot: false,
    visitor,
    ...extra,
  };
}
