/**
 * Process configuration: what must be known before the store opens. Read once
 * at start from the environment; every variable may instead be given as
 * `NAME_FILE`, the path of a file holding the value (container secrets).
 * Server settings (routes, limits, features) are not here: they live in the
 * store and come from the settings registry.
 */
import { join } from "node:path";
import { z } from "zod";

/** Thrown for a missing or invalid variable; the message names it. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

const schema = z.object({
  SERVICE_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  SERVICE_HOSTNAME: z.string().min(1).default("0.0.0.0"),
  SERVICE_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SERVICE_DATA_DIR: z.string().min(1).default("./data"),
  SERVICE_THEMES_DIRECTORY: z.string().min(1).default("./themes"),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  SERVICE_DATASOURCE_TYPE: z.enum(["local", "s3"]).default("local"),
  SERVICE_DATASOURCE_LOCAL_DIRECTORY: z.string().min(1).optional(),
  SERVICE_DATASOURCE_S3_ENDPOINT: z.url().optional(),
  SERVICE_DATASOURCE_S3_REGION: z.string().min(1).default("us-east-1"),
  SERVICE_DATASOURCE_S3_BUCKET: z.string().min(1).optional(),
  SERVICE_DATASOURCE_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  SERVICE_DATASOURCE_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  SERVICE_DATASOURCE_S3_FORCE_PATH_STYLE: bool.default(false),
  SERVICE_DATASOURCE_S3_SUBDIRECTORY: z.string().regex(
    /^(?!\/)(?!.*\/\/)(?!.*(^|\/)\.\.?(\/|$))[^\\\0]*$/,
    "must be a relative path without '.', '..' or empty segments",
  ).optional(),
});

/** Where file bytes go, as configured. */
export type DatasourceConfig =
  | { type: "local"; directory: string }
  | {
    type: "s3";
    endpoint?: string;
    region: string;
    bucket: string;
    accessKeyId: string;
    secretAccessKey: string;
    forcePathStyle: boolean;
    subdirectory?: string;
  };

/** The validated process configuration. */
export interface Config {
  port: number;
  hostname: string;
  /** `undefined` when not configured: the caller generates and keeps one. */
  secret?: string;
  dataDir: string;
  /** Where custom dashboard themes (`<id>.theme.json`) are read from at start. */
  themesDirectory: string;
  /** Set for PostgreSQL; absent selects Deno KV in the data directory. */
  databaseUrl?: string;
  datasource: DatasourceConfig;
}

/**
 * Validates `env` into a {@link Config}. `NAME_FILE` variables are read with
 * `readFile` (trailing newline dropped). Throws {@link ConfigError} naming the
 * first bad variable.
 */
export function parseConfig(
  env: Record<string, string | undefined>,
  readFile: (path: string) => string,
): Config {
  const values: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const direct = env[key];
    const file = env[`${key}_FILE`];
    if (direct !== undefined && direct !== "") values[key] = direct;
    else if (file) {
      try {
        values[key] = readFile(file).replace(/\r?\n$/, "");
      } catch (error) {
        throw new ConfigError(`${key}_FILE: cannot read ${file}: ${(error as Error).message}`);
      }
    }
  }
  const parsed = schema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${issue.path.join(".")}: ${issue.message}`);
  }
  const v = parsed.data;
  return {
    port: v.SERVICE_PORT,
    hostname: v.SERVICE_HOSTNAME,
    secret: v.SERVICE_SECRET,
    dataDir: v.SERVICE_DATA_DIR,
    themesDirectory: v.SERVICE_THEMES_DIRECTORY,
    databaseUrl: v.DATABASE_URL,
    datasource: v.SERVICE_DATASOURCE_TYPE === "local"
      ? {
        type: "local",
        directory: v.SERVICE_DATASOURCE_LOCAL_DIRECTORY ?? join(v.SERVICE_DATA_DIR, "uploads"),
      }
      : {
        type: "s3",
        endpoint: v.SERVICE_DATASOURCE_S3_ENDPOINT,
        region: v.SERVICE_DATASOURCE_S3_REGION,
        bucket: required(v.SERVICE_DATASOURCE_S3_BUCKET, "SERVICE_DATASOURCE_S3_BUCKET"),
        accessKeyId: required(
          v.SERVICE_DATASOURCE_S3_ACCESS_KEY_ID,
          "SERVICE_DATASOURCE_S3_ACCESS_KEY_ID",
        ),
        secretAccessKey: required(
          v.SERVICE_DATASOURCE_S3_SECRET_ACCESS_KEY,
          "SERVICE_DATASOURCE_S3_SECRET_ACCESS_KEY",
        ),
        forcePathStyle: v.SERVICE_DATASOURCE_S3_FORCE_PATH_STYLE,
        subdirectory: v.SERVICE_DATASOURCE_S3_SUBDIRECTORY || undefined,
      },
  };
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new ConfigError(`${name}: required when SERVICE_DATASOURCE_TYPE is s3`);
  return value;
}
