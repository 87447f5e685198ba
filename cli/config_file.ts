/**
 * The settings on the shell, after Zipline's `ziplinectl read-config` and
 * `export-config`:
 *
 * - `read-config [-f]` prints the settings as the server sees them (stored
 *   values over defaults, environment overrides on top) as JSON;
 *   `read-config FILE` applies a JSON file of settings through the settings
 *   service: validated by the registry as a `PATCH /api/server/settings` is
 *   (one bad key and nothing changes), keys the environment sets refused, the
 *   change recorded in the audit trail.
 * - `export-config FILE` (or `--json` on stdout) writes every setting as the
 *   JSON that `read-config FILE` reads back; without them it prints the
 *   settings as `SERVICE_<KEY>=value` environment lines, as Zipline does.
 *
 * Nothing is masked: the operator owns the machine (and the secret settings).
 */
import { isDeepStrictEqual } from "node:util";
import { parseArgs } from "node:util";
import type { Config } from "./config.ts";
import {
  defaultSettings,
  envName,
  SETTING_KEYS,
  settingDef,
  type SettingKey,
} from "../core/settings/registry.ts";
import { OPERATOR, Refusal, withServices } from "./operator.ts";

const READ_USAGE =
  `usage: read-config [-f|--format]     print the settings as the server sees them, as JSON
       read-config FILE              apply the settings in a JSON file (as export-config writes)
A file is validated as a whole by the settings registry: one bad key and nothing changes.
Keys set in the environment (SERVICE_<KEY>) cannot be changed. The change is recorded in
the settings audit trail as made by "${OPERATOR.username}". Secrets are printed unmasked.`;

const EXPORT_USAGE =
  `usage: export-config FILE                 write every setting as JSON (read-config FILE reads it)
       export-config --json [-f]         the same JSON on stdout
       export-config [-y|--yml] [-d|--show-defaults]
                                         the settings as SERVICE_<KEY>=value environment lines,
                                         only those changed from their default unless -d
Nothing is masked: secret settings (OAuth client secrets, webhook URLs, the webhook signing
secret) are written in clear, since the operator owns the machine. The file is created
readable by its owner only; keep it so.`;

/** A setting's value as its environment variable takes it, quoted where it is text. */
function envText(key: SettingKey, value: unknown): string {
  const { type } = settingDef(key);
  if (type === "boolean" || type === "integer") return String(value);
  const text = type === "list"
    ? (value as string[]).join(",")
    : type === "json"
    ? JSON.stringify(value)
    : String(value);
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** Runs `read-config`; returns the exit code. */
export async function readConfigCommand(config: Config, args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: "boolean", short: "f" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(READ_USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    console.error(READ_USAGE);
    return 2;
  }
  const [file] = positionals;
  return await withServices(config, async (s) => {
    if (!file) {
      console.log(JSON.stringify(s.settings.all(), null, values.format ? 2 : 0));
      return 0;
    }
    let body: unknown;
    try {
      body = JSON.parse(await Deno.readTextFile(file));
    } catch (error) {
      throw new Refusal(`cannot read ${file} as JSON: ${(error as Error).message}`);
    }
    const before = { ...s.settings.all() };
    await s.settings.update(body, OPERATOR);
    const after = s.settings.all();
    const changed = SETTING_KEYS.filter((k) => !isDeepStrictEqual(before[k], after[k]));
    console.log(
      changed.length
        ? `${changed.length} setting(s) changed: ${changed.join(", ")}`
        : "no setting changed: the file matches the settings in force",
    );
    return 0;
  });
}

/** Runs `export-config`; returns the exit code. */
export async function exportConfigCommand(config: Config, args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: "boolean" },
      format: { type: "boolean", short: "f" },
      yml: { type: "boolean", short: "y" },
      "show-defaults": { type: "boolean", short: "d" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(EXPORT_USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    console.error(EXPORT_USAGE);
    return 2;
  }
  const [file] = positionals;
  return await withServices(config, async (s) => {
    const settings = s.settings.all();
    if (file) {
      await Deno.writeTextFile(file, JSON.stringify(settings, null, 2) + "\n", { mode: 0o600 });
      await Deno.chmod(file, 0o600).catch(() => {});
      console.log(`wrote ${SETTING_KEYS.length} settings to ${file}`);
      return 0;
    }
    if (values.json) {
      console.log(JSON.stringify(settings, null, values.format ? 2 : 0));
      return 0;
    }
    const defaults = defaultSettings();
    for (const key of SETTING_KEYS) {
      const value = settings[key];
      if (value === null || value === undefined) continue;
      if (!values["show-defaults"] && isDeepStrictEqual(value, defaults[key])) continue;
      console.log(`${values.yml ? "- " : ""}${envName(key)}=${envText(key, value)}`);
    }
    return 0;
  });
}
