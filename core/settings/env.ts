/**
 * Settings overrides from the environment: every key may be set as
 * `SERVICE_<KEY_IN_UPPER_SNAKE_CASE>` (or `..._FILE`, the path of a file
 * holding the value, as for the process configuration). An overridden key
 * is listed in `tampered`, its value wins over the stored one, and the API
 * may not change it. Parsing is a pure function of the environment record.
 */
import {
  envName,
  SETTING_KEYS,
  settingDef,
  type SettingKey,
  type Settings,
  type SettingType,
} from "./registry.ts";

/** Thrown for a bad override; the message names the variable. */
export class SettingsEnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingsEnvError";
  }
}

/** The text of variable `name` as the key's schema takes it. */
function fromText(name: string, type: SettingType, text: string): unknown {
  switch (type) {
    case "boolean":
      if (text === "true" || text === "false") return text === "true";
      throw new SettingsEnvError(`${name}: must be true or false`);
    case "integer":
      if (/^-?\d+$/.test(text.trim())) return Number(text);
      throw new SettingsEnvError(`${name}: must be an integer`);
    default:
      return text;
  }
}

/**
 * The overridden settings in `env`, validated by the registry. `NAME_FILE`
 * variables are read with `readFile` (trailing newline dropped). An empty
 * variable counts as unset. Throws {@link SettingsEnvError} naming the first
 * bad variable. File paths are checked for existence by the caller.
 */
export function parseSettingsEnv(
  env: Record<string, string | undefined>,
  readFile: (path: string) => string,
): Partial<Settings> {
  const overrides: Partial<Record<SettingKey, unknown>> = {};
  for (const key of SETTING_KEYS) {
    const name = envName(key);
    let text = env[name];
    if (text === undefined || text === "") {
      const file = env[`${name}_FILE`];
      if (!file) continue;
      try {
        text = readFile(file).replace(/\r?\n$/, "");
      } catch (error) {
        throw new SettingsEnvError(
          `${name}_FILE: cannot read ${file}: ${(error as Error).message}`,
        );
      }
    }
    const def = settingDef(key);
    const parsed = def.schema.safeParse(fromText(name, def.type, text));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue.path.length ? ` (at ${issue.path.join(".")})` : "";
      throw new SettingsEnvError(`${name}: ${issue.message}${where}`);
    }
    overrides[key] = parsed.data;
  }
  return overrides as Partial<Settings>;
}
