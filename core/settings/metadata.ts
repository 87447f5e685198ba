/**
 * The settings registry as data a form can be generated from: each key's
 * category, type, control, default, description and flags. Derived from
 * `registry.ts` only; no key is named here.
 */
import { z } from "zod";
import {
  type Category,
  envName,
  SETTING_KEYS,
  type SettingDef,
  settingDef,
  type SettingKey,
  type SettingType,
} from "./registry.ts";

/** The form control a value is edited with. */
export type SettingControl =
  | "switch"
  | "number"
  | "size"
  | "duration"
  | "text"
  | "path"
  | "list"
  | "json";

/** One key's description for forms. */
export interface SettingMeta {
  key: SettingKey;
  category: Category;
  /** What a person reads beside the field. */
  label: string;
  type: SettingType;
  control: SettingControl;
  unit: "size" | "duration" | "ms" | null;
  options: string[] | null;
  nullable: boolean;
  default: unknown;
  description: string;
  restart: boolean;
  secret: boolean;
  /** Only a SUPERADMIN may change it. */
  superadminOnly: boolean;
  path: "file" | "directory" | null;
  env: string;
  /** Zipline's name for the key, shown beside it by `GET /api/server/settings`. */
  alias: string | null;
}

function controlOf(def: SettingDef): SettingControl {
  if (def.path) return "path";
  if (def.unit === "size" || def.unit === "duration") return def.unit;
  switch (def.type) {
    case "boolean":
      return "switch";
    case "integer":
      return "number";
    case "list":
    case "json":
      return def.type;
    default:
      return "text";
  }
}

/** The fixed values of an enum key (`filesDefaultFormat`), or `null`. */
function optionsOf(def: SettingDef): string[] | null {
  return def.schema instanceof z.ZodEnum ? def.schema.options.map(String) : null;
}

/** Every key, in registry order. */
export function settingsMetadata(): SettingMeta[] {
  return SETTING_KEYS.map((key) => {
    const def = settingDef(key);
    return {
      key,
      category: def.category,
      label: def.label,
      type: def.type,
      control: controlOf(def),
      unit: def.unit ?? null,
      options: optionsOf(def),
      nullable: def.schema.safeParse(null).success,
      default: def.default,
      description: def.description,
      restart: def.restart ?? false,
      secret: def.secret ?? false,
      superadminOnly: def.superadminOnly ?? false,
      path: def.path ?? null,
      env: envName(key),
      alias: def.alias ?? null,
    };
  });
}
