/**
 * Builds the running service from the environment: configuration, the server
 * secret, the store, the datasource and the settings. Shared by `serve` and
 * the operator commands.
 */
import { imagePool } from "../core/files/image_pool.ts";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import denoJson from "../deno.json" with { type: "json" };
import { type Clock, randomString, systemClock, systemRandom } from "../core/clock.ts";
import { type Config, ConfigError, parseConfig } from "./config.ts";
import { consoleLogger, type Logger } from "../core/log.ts";
import type { BuildInfo, Services } from "../core/services.ts";
import { parseSettingsEnv, SettingsEnvError } from "../core/settings/env.ts";
import { envName, type Settings } from "../core/settings/registry.ts";
import { SettingsService } from "../core/settings/service.ts";
import { readThemes } from "../core/themes.ts";
import { checkPaths, type ValidationContext } from "../core/settings/validate.ts";
import { openKvStore } from "../db/kv/mod.ts";
import { servingStore } from "../db/serving.ts";
import type { Backend, Store } from "../db/store.ts";
import type { Datasource } from "../storage/datasource.ts";
import { LocalDatasource } from "../storage/local.ts";
import { closeVisits } from "../core/visits/record.ts";
import { closePasswordWorkers } from "../core/passwords.ts";

/** Reads and validates the environment; prints the problem and exits 1 when it is bad. */
export function loadConfig(): Config {
  try {
    return parseConfig(Deno.env.toObject(), (path) => Deno.readTextFileSync(path));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`configuration error: ${error.message}`);
    Deno.exit(1);
  }
}

/** Settings paths checked on this machine's file system. */
export const fileSystemContext: ValidationContext = {
  async exists(path, kind) {
    try {
      const info = await Deno.stat(path);
      return kind === "file" ? info.isFile : info.isDirectory;
    } catch {
      return false;
    }
  },
};

/**
 * Reads the settings overrides (`SERVICE_<KEY>`) from the environment and
 * checks their paths; prints the problem and exits 1 when one is bad.
 */
export async function loadSettingsOverrides(): Promise<Partial<Settings>> {
  try {
    const overrides = parseSettingsEnv(Deno.env.toObject(), (p) => Deno.readTextFileSync(p));
    const [bad] = await checkPaths(overrides, fileSystemContext);
    if (bad) {
      throw new SettingsEnvError(`${envName(bad.path[0] as keyof Settings)}: ${bad.message}`);
    }
    return overrides;
  } catch (error) {
    if (!(error instanceof SettingsEnvError)) throw error;
    console.error(`configuration error: ${error.message}`);
    Deno.exit(1);
  }
}

/**
 * The configured secret, or the one kept in `<data dir>/secret`, generated
 * (mode 0600) on first start.
 */
export async function serverSecret(config: Config, logger: Logger): Promise<string> {
  if (config.secret) return config.secret;
  const path = join(config.dataDir, "secret");
  try {
    const kept = (await Deno.readTextFile(path)).trim();
    if (kept.length >= 32) return kept;
    throw new ConfigError(`${path} holds a secret shorter than 32 characters: fix or remove it`);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await Deno.mkdir(config.dataDir, { recursive: true });
  const secret = randomString(systemRandom, 64);
  await Deno.writeTextFile(path, secret + "\n", { mode: 0o600 });
  await Deno.chmod(path, 0o600).catch(() => {});
  logger.info("SERVICE_SECRET is not set: generated one and kept it", { path });
  return secret;
}

/**
 * Opens PostgreSQL when `DATABASE_URL` is set, else Deno KV in the data
 * directory, behind the serving store (its caches on `clock`). The PostgreSQL
 * client and the S3 SDK (below) are imported only when configured: each is
 * more than 10 MiB of memory once loaded.
 */
export async function openStore(config: Config, clock: Clock): Promise<Store> {
  return servingStore(await openBackend(config), clock);
}

/** The configured backend, plain. */
async function openBackend(config: Config): Promise<Backend> {
  if (config.databaseUrl) {
    const { openPostgresStore } = await import("../db/postgres/mod.ts");
    return await openPostgresStore(config.databaseUrl);
  }
  await Deno.mkdir(config.dataDir, { recursive: true });
  return await openKvStore(join(config.dataDir, "ferry.kv"));
}

/** Opens the configured datasource. */
export async function openDatasource(config: Config): Promise<Datasource> {
  const ds = config.datasource;
  if (ds.type === "s3") return new (await import("../storage/s3.ts")).S3Datasource(ds);
  await Deno.mkdir(ds.directory, { recursive: true });
  return new LocalDatasource(ds.directory);
}

/** The build: version from deno.json; commit from `FERRY_COMMIT` or the checkout's `.git`. */
export async function buildInfo(): Promise<BuildInfo> {
  return { version: denoJson.version, commit: Deno.env.get("FERRY_COMMIT") || await gitCommit() };
}

async function gitCommit(): Promise<string | null> {
  if (!import.meta.url.startsWith("file:")) return null;
  const git = join(dirname(dirname(fileURLToPath(import.meta.url))), ".git");
  try {
    const head = (await Deno.readTextFile(join(git, "HEAD"))).trim();
    const ref = head.match(/^ref: (.+)$/)?.[1];
    const sha = ref ? (await Deno.readTextFile(join(git, ref))).trim() : head;
    return /^[0-9a-f]{40}$/.test(sha) ? sha.slice(0, 12) : null;
  } catch {
    return null;
  }
}

/**
 * The `ffmpeg` executable on `PATH` that this process may run (the tasks grant
 * `--allow-run=ffmpeg`), or `null`: video thumbnails are then skipped. Logs
 * one it found but may not run.
 */
export async function findFfmpeg(logger: Logger): Promise<string | null> {
  const file = Deno.build.os === "windows" ? "ffmpeg.exe" : "ffmpeg";
  for (const dir of (Deno.env.get("PATH") ?? "").split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, file);
    const info = await Deno.stat(path).catch(() => null);
    if (!info?.isFile || (info.mode !== null && (info.mode & 0o111) === 0)) continue;
    if (Deno.permissions.querySync({ name: "run", command: path }).state === "granted") return path;
    logger.warn("ffmpeg is installed but may not be run: start Ferry with --allow-run=ffmpeg", {
      path,
    });
    return null;
  }
  return null;
}

/** Everything the server needs, opened and loaded. */
export async function openServices(config: Config, logger: Logger = consoleLogger) {
  const overrides = await loadSettingsOverrides();
  const secret = await serverSecret(config, logger);
  const store = await openStore(config, systemClock);
  const datasource = await openDatasource(config);
  const settings = new SettingsService(store, {
    context: fileSystemContext,
    clock: systemClock,
    logger,
    overrides,
  });
  await settings.reload();
  const services: Services = {
    store,
    datasource,
    settings,
    clock: systemClock,
    random: systemRandom,
    logger,
    secret,
    build: await buildInfo(),
    ffmpeg: await findFfmpeg(logger),
    themes: await readThemes(config.themesDirectory, logger),
  };
  return services;
}

/** Closes what {@link openServices} opened, and ends the image workers (so the process can exit). */
export async function closeServices(s: Services): Promise<void> {
  s.settings.stop();
  // The visits this instance still holds are written before the store closes.
  await closeVisits(s).catch((error) =>
    s.logger.error("could not record visits", { error: String(error) })
  );
  imagePool().close();
  closePasswordWorkers();
  await Promise.allSettled([s.store.close(), s.datasource.close()]);
}
