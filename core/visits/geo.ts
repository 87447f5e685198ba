/**
 * The country of a visit, from the GeoLite2-Country database (or any MMDB
 * file of its shape: `country.iso_code`) that `analyticsGeoLite2Path` names,
 * read with MaxMind's reader. Without the setting there is no country and
 * nothing else changes; a file that cannot be opened is logged once (per
 * path) and then treated as no setting. The database is opened on first use
 * and again when the setting names another file.
 */
import type { CountryResponse, Reader } from "maxmind";
import { perServices, type Services } from "../services.ts";

/** MaxMind's reader, loaded once a database is configured (without one it is never needed). */
const maxmind = async () => (await import("maxmind")).default;

interface Held {
  path: string | null;
  reader: Promise<Reader<CountryResponse> | null>;
}

const held = perServices((_: Services) => ({ path: null, reader: Promise.resolve(null) } as Held));

/** The reader of the configured database, `null` when there is none or it cannot be read. */
function readerOf(s: Services): Promise<Reader<CountryResponse> | null> {
  const path = s.settings.get("analyticsGeoLite2Path");
  const current = held(s);
  if (current.path !== path) {
    current.path = path;
    current.reader = path === null ? Promise.resolve(null) : maxmind()
      .then((reader) => reader.open<CountryResponse>(path, { watchForUpdates: false }))
      .catch((error) => {
        s.logger.warn("the GeoLite2 database could not be read; visits get no country", {
          path,
          error: String(error),
        });
        return null;
      });
  }
  return current.reader;
}

/** The country of an address: its ISO code, or `null`. */
export type CountryLookup = (ip: string) => string | null;

/**
 * The lookup of the configured database (`null` for every address without
 * one), read once for a batch of visits.
 */
export async function countryLookup(s: Services): Promise<CountryLookup> {
  const reader = await readerOf(s);
  if (reader === null) return () => null;
  const { validate } = await maxmind();
  return (ip) => {
    if (!validate(ip)) return null;
    try {
      return reader.get(ip)?.country?.iso_code ?? null;
    } catch {
      return null;
    }
  };
}
