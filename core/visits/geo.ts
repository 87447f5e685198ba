/**
 * The country of a visit, from the GeoLite2-Country database (or any MMDB
 * file of its shape: `country.iso_code`) that `analyticsGeoLite2Path` names,
 * read with MaxMind's reader. Without the setting there is no country and
 * nothing else changes; a file that cannot be opened is logged once (per
 * path, by the recorder: the reader lives in the visits worker) and then
 * treated as no setting. The database is opened on first use and again when
 * the setting names another file.
 */
import type { CountryResponse, Reader } from "maxmind";

/** MaxMind's reader, loaded once a database is configured (without one it is never needed). */
const maxmind = async () => (await import("maxmind")).default;

/** The country of an address: its ISO code, or `null`. */
export type CountryLookup = (ip: string) => string | null;

/** The lookup of one database file, or why it could not be read. */
export type OpenedLookup = { lookup: CountryLookup; error: string | null };

const none: CountryLookup = () => null;

/** The file opened last (a batch names the same one as the one before nearly always). */
let held: { path: string | null; opened: Promise<OpenedLookup> } = {
  path: null,
  opened: Promise.resolve({ lookup: none, error: null }),
};

/**
 * The lookup of the database at `path` (`null`: none, every address
 * `null`), opened once and kept while batches name it; a file that cannot be
 * read looks up nothing and says why (`error`).
 */
export function countryLookupAt(path: string | null): Promise<OpenedLookup> {
  if (held.path !== path) held = { path, opened: open(path) };
  return held.opened;
}

async function open(path: string | null): Promise<OpenedLookup> {
  if (path === null) return { lookup: none, error: null };
  try {
    const mm = await maxmind();
    const reader: Reader<CountryResponse> = await mm.open<CountryResponse>(path, {
      watchForUpdates: false,
    });
    const lookup: CountryLookup = (ip) => {
      if (!mm.validate(ip)) return null;
      try {
        return reader.get(ip)?.country?.iso_code ?? null;
      } catch {
        return null;
      }
    };
    return { lookup, error: null };
  } catch (error) {
    return { lookup: none, error: String(error) };
  }
}
