/// <reference lib="dom" />
/**
 * The dashboard's calls to the visits routes (`routes/visits.ts`), typed
 * from the server's own zod schemas (type-only imports: nothing of the server
 * is bundled). Not used by a page yet: the visits views are still to come.
 */
import type { z } from "zod";
import type { VisitsQuery, VisitsReportSchema } from "../../routes/visits.ts";
import { api } from "../api.ts";

/** What a visits read answers: the series and the tops. */
export type VisitsReport = z.infer<typeof VisitsReportSchema>;
/** The range and bucket of a read. */
export type VisitsRange = z.infer<typeof VisitsQuery>;

/** What visits are read of: one link, one file, all of the caller's, or the server's. */
export type VisitsOf =
  | { kind: "url"; id: string }
  | { kind: "file"; id: string }
  | { kind: "mine" }
  | { kind: "server" };

const paths = {
  url: (id: string) => `/api/user/urls/${encodeURIComponent(id)}/visits`,
  file: (id: string) => `/api/user/files/${encodeURIComponent(id)}/visits`,
};

/** The visits of `of` over `range`. */
export function getVisits(of: VisitsOf, range: VisitsRange = {}): Promise<VisitsReport> {
  const path = of.kind === "mine"
    ? "/api/user/visits"
    : of.kind === "server"
    ? "/api/server/visits"
    : paths[of.kind](of.id);
  const query = new URLSearchParams(
    Object.entries(range).filter((e): e is [string, string] => e[1] !== undefined),
  );
  return api<VisitsReport>("GET", query.size ? `${path}?${query}` : path);
}
