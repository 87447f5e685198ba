/**
 * The running settings: defaults overlaid with what the store holds. Read
 * once at start and after each change, so requests read memory, not the store.
 */
import type { Store } from "../../db/store.ts";
import { defaultSettings, REGISTRY, type SettingKey, type Settings } from "./registry.ts";

/** Holds the current settings for one server process. */
export class SettingsService {
  private current: Settings = defaultSettings();

  constructor(private readonly store: Store) {}

  /** Re-reads the stored values; unknown or invalid stored keys are ignored. */
  async reload(): Promise<Settings> {
    const next = defaultSettings() as Record<string, unknown>;
    for (const [key, value] of Object.entries(await this.store.getSettings())) {
      const def = REGISTRY[key as SettingKey];
      const parsed = def?.schema.safeParse(value);
      if (parsed?.success) next[key] = parsed.data;
    }
    this.current = next as Settings;
    return this.current;
  }

  /** The value of one key. */
  get<K extends SettingKey>(key: K): Settings[K] {
    return this.current[key];
  }

  /** Every key's current value. */
  all(): Settings {
    return this.current;
  }
}
