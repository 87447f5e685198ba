/**
 * What the core functions work with, gathered in one object the server builds
 * at start (and tests build with a manual clock and an in-memory store).
 */
import type { Store } from "../db/store.ts";
import type { Datasource } from "../storage/datasource.ts";
import type { Clock, Random } from "./clock.ts";
import type { Logger } from "./log.ts";
import type { Resolver } from "./net/outbound.ts";
import type { SettingsService } from "./settings/service.ts";
import type { Theme } from "./themes.ts";

/** The build this program is: version from deno.json, commit when known. */
export interface BuildInfo {
  version: string;
  commit: string | null;
}

/** Everything a core function may need. */
export interface Services {
  store: Store;
  datasource: Datasource;
  settings: SettingsService;
  clock: Clock;
  random: Random;
  logger: Logger;
  /** The server secret: encrypts tokens and TOTP secrets. */
  secret: string;
  build: BuildInfo;
  /** The `ffmpeg` executable video thumbnails are made with; absent or `null` where there is none. */
  ffmpeg?: string | null;
  /** The custom dashboard themes, read at start from the themes directory; absent: none. */
  themes?: readonly Theme[];
  /**
   * How host names of outbound requests (webhooks, the version service) are
   * resolved before they are checked; the system's DNS when absent. Tests
   * give answers of their own.
   */
  resolver?: Resolver;
}

/**
 * `make(s)`, made once per services object on first use and held as long as
 * it lives: how a core module keeps a memo (a `FreshCache`, `db/fresh_cache.ts`) per
 * instance rather than per process, so that each test app starts empty and
 * runs on its own clock.
 */
export function perServices<S extends object, T>(make: (s: S) => T): (s: S) => T {
  const held = new WeakMap<S, T>();
  return (s) => {
    let value = held.get(s);
    if (value === undefined) held.set(s, value = make(s));
    return value;
  };
}
