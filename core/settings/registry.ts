/**
 * The settings registry: the one place a server setting is described. The
 * settings routes, defaults, validation, environment overrides and the API
 * document all derive from it.
 */
import { z } from "zod";

/** The description of one setting. */
export interface SettingDef<T = unknown> {
  /** Category, as in the spec's §2.4 table. */
  category: string;
  /** Validates (and normalises) a value. */
  schema: z.ZodType<T>;
  /** The value until one is written. */
  default: T;
  /** What it does, for the API document and the README. */
  description: string;
  /** `true` when a change takes effect only after a restart. */
  restart?: boolean;
}

const def = <T>(d: SettingDef<T>): SettingDef<T> => d;

/** Every setting, by key. */
export const REGISTRY = {
  coreReturnHttpsUrls: def({
    category: "Core",
    schema: z.boolean(),
    default: false,
    description: "Build returned URLs with https and mark cookies Secure.",
  }),
  featuresHealthcheck: def({
    category: "Features",
    schema: z.boolean(),
    default: true,
    description: "Serve GET /api/healthcheck.",
  }),
};

/** A settings key. */
export type SettingKey = keyof typeof REGISTRY;

/** The full settings object. */
export type Settings = {
  [K in SettingKey]: (typeof REGISTRY)[K] extends SettingDef<infer T> ? T : never;
};

/** The defaults of every key. */
export function defaultSettings(): Settings {
  return Object.fromEntries(
    Object.entries(REGISTRY).map(([key, d]) => [key, structuredClone(d.default)]),
  ) as Settings;
}
