/**
 * The running settings: defaults, overlaid with what the store holds,
 * overlaid with the environment overrides. Read at start, after each change,
 * and whenever the store reports that another process changed them, so that
 * requests read memory, not the store.
 */
import type { Store } from "../../db/store.ts";
import type { SettingChange, SettingsAuditQuery, SettingsAuditRecord } from "../../db/settings.ts";
import type { Clock } from "../clock.ts";
import { badRequest, forbidden, type Issue } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Role } from "../../db/users.ts";
import { hasRole } from "../roles.ts";
import {
  defaultSettings,
  isSettingKey,
  MASK,
  SETTING_KEYS,
  settingDef,
  type SettingKey,
  type Settings,
  withAliases,
} from "./registry.ts";
import { validateChange, type ValidationContext } from "./validate.ts";

/** What a {@link SettingsService} is built with. */
export interface SettingsServiceOptions {
  /** Checks paths on the server (`cli/services.ts` builds it on `Deno.stat`). */
  context: ValidationContext;
  clock: Clock;
  logger: Logger;
  /** Values from the environment (`env.ts`): they win and cannot be changed. */
  overrides?: Partial<Settings>;
}

/** Who changes the settings: named in the audit trail; its role decides what it sees. */
export interface SettingsActor {
  id: string;
  username: string;
  role: Role;
}

/** The settings as the API shows them. */
export interface SettingsView {
  /**
   * Secret values are {@link MASK} for a caller below SUPERADMIN; each alias
   * (Zipline's name of a key) is shown beside its key.
   */
  settings: Settings & Record<string, unknown>;
  /** Keys set by the environment. */
  tampered: SettingKey[];
  /** The secret keys that hold a value (masked or not). */
  secretsSet: SettingKey[];
}

/** The value with a secret masked (`null` kept): for the audit trail and non-SUPERADMINs. */
function masked(key: SettingKey, value: unknown): unknown {
  return settingDef(key).secret && value !== null ? MASK : value;
}

/** Holds the current settings for one server process. */
export class SettingsService {
  private current: Settings = defaultSettings();
  private readonly overrides: Partial<Settings>;
  private readonly tamperedKeys: ReadonlySet<SettingKey>;
  private loading: Promise<unknown> = Promise.resolve();
  private stopWatching?: () => void;

  constructor(
    private readonly store: Pick<Store, "settings">,
    private readonly options: SettingsServiceOptions,
  ) {
    this.overrides = options.overrides ?? {};
    this.tamperedKeys = new Set(SETTING_KEYS.filter((k) => k in this.overrides));
  }

  /**
   * Re-reads the stored values. Stored keys that are unknown or no longer
   * valid fall back to their default. Reloads run one at a time, so a slow
   * one never overwrites a newer one.
   */
  reload(): Promise<Settings> {
    const next = this.loading.then(() => this.load());
    this.loading = next.catch(() => {});
    return next;
  }

  private async load(): Promise<Settings> {
    const next = defaultSettings() as Record<string, unknown>;
    for (const [key, value] of Object.entries(await this.store.settings.read())) {
      if (!isSettingKey(key)) continue;
      const parsed = settingDef(key).schema.safeParse(value);
      if (parsed.success) next[key] = parsed.data;
    }
    this.current = { ...next, ...this.overrides } as Settings;
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

  /**
   * The settings and the keys the environment sets, as a caller of `role`
   * sees them: secrets are write-only below SUPERADMIN (masked, and listed in
   * `secretsSet` when they hold a value).
   */
  view(role: Role): SettingsView {
    const current = this.current;
    const settings = hasRole(role, "SUPERADMIN") ? current : Object.fromEntries(
      SETTING_KEYS.map((key) => [key, masked(key, current[key])]),
    ) as Settings;
    const secretsSet = SETTING_KEYS.filter((k) => settingDef(k).secret && current[k] !== null);
    return { settings: withAliases(settings), tampered: [...this.tamperedKeys], secretsSet };
  }

  /**
   * Applies a PATCH body: validates every key (a 400 with `issues` naming
   * each bad key, nothing written), writes the changed keys and their audit
   * record in one atomic store write, and reloads. A secret sent as
   * {@link MASK} (a dashboard sending back what it was shown) stays as it is.
   * A `superadminOnly` key changed by anyone else is refused (403).
   */
  async update(body: unknown, actor: SettingsActor): Promise<SettingsView> {
    const current = await this.reload();
    const result = await validateChange(body, current, this.tamperedKeys, this.options.context);
    if (!result.ok) {
      const [first] = result.issues;
      throw badRequest(["body", ...first.path].join("/") + ` ${first.message}`, result.issues);
    }
    const reserved = Object.keys(result.values).find((k) =>
      settingDef(k as SettingKey).superadminOnly
    );
    if (reserved && !hasRole(actor.role, "SUPERADMIN")) {
      throw forbidden(`Only a SUPERADMIN may change ${reserved}`);
    }
    const changes: SettingChange[] = Object.entries(result.values).map(([key, value]) => ({
      key,
      old: masked(key as SettingKey, current[key as SettingKey]),
      new: masked(key as SettingKey, value),
    }));
    if (changes.length > 0) {
      await this.store.settings.update(result.values, {
        at: new Date(this.options.clock.now()),
        userId: actor.id,
        username: actor.username,
        changes,
      });
      this.options.logger.info("settings changed", {
        by: actor.username,
        keys: changes.map((c) => c.key).join(","),
      });
    }
    await this.reload();
    return this.view(actor.role);
  }

  /** `true` when the environment sets `key` (it is listed in `tampered` and cannot be changed). */
  isTampered(key: SettingKey): boolean {
    return this.tamperedKeys.has(key);
  }

  /** The audit trail of settings changes, newest first. */
  async history(query: SettingsAuditQuery): Promise<SettingsAuditRecord[]> {
    return await this.store.settings.listAudit(query);
  }

  /** Starts following changes other processes make through the store. */
  start(): void {
    this.stopWatching ??= this.store.settings.watch(() => {
      this.reload().catch((error) =>
        this.options.logger.error("settings reload failed", { error })
      );
    });
  }

  /**
   * Validates settings imported from another instance: as {@link update}
   * does, but keys this version does not know are ignored, and a key that
   * fails (or is set by the environment) is left out and reported instead of
   * failing the rest. Returns the values to write with their audit changes;
   * the caller writes them (inside its import's transaction) and reloads.
   */
  async validateImport(
    body: Record<string, unknown>,
  ): Promise<{ values: Partial<Settings>; changes: SettingChange[]; issues: Issue[] }> {
    const current = await this.reload();
    const issues: Issue[] = [];
    const left = Object.fromEntries(Object.entries(body).filter(([key]) => isSettingKey(key)));
    while (Object.keys(left).length > 0) {
      const result = await validateChange(left, current, this.tamperedKeys, this.options.context);
      if (result.ok) {
        const changes = Object.entries(result.values).map(([key, value]) => ({
          key,
          old: masked(key as SettingKey, current[key as SettingKey]),
          new: masked(key as SettingKey, value),
        }));
        return { values: result.values, changes, issues };
      }
      const before = Object.keys(left).length;
      for (const issue of result.issues) {
        issues.push(issue);
        delete left[issue.path[0]];
      }
      if (Object.keys(left).length === before) break;
    }
    return { values: {}, changes: [], issues };
  }

  /** Stops following changes. */
  stop(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
  }
}
