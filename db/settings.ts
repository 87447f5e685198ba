/**
 * The stored settings values (only keys ever written; the registry,
 * `core/settings/registry.ts`, has the rest), their version, and the audit
 * trail of their changes.
 */

/** One key's change as the audit trail keeps it; secret values are already masked. */
export interface SettingChange {
  key: string;
  old: unknown;
  new: unknown;
}

/** One settings change by one user. `id` is the settings version the change produced. */
export interface SettingsAuditRecord {
  id: number;
  at: Date;
  userId: string;
  username: string;
  changes: SettingChange[];
}

/** An audit record before the store numbers it. */
export type SettingsAuditDraft = Omit<SettingsAuditRecord, "id">;

/** Which audit records to list: `before` is an id (exclusive) or a time (exclusive). */
export interface SettingsAuditQuery {
  limit: number;
  before?: number | Date;
}

/** The settings values, their version and their audit trail. */
export interface SettingsStore {
  /** The stored settings values (only keys ever written). */
  read(): Promise<Record<string, unknown>>;
  /**
   * Writes the given keys atomically; other keys keep their values. In the
   * same atomic write it bumps the settings version and, when given, adds the
   * audit record (whose id is the new version). Returns the new version.
   */
  update(values: Record<string, unknown>, audit?: SettingsAuditDraft): Promise<number>;
  /** Settings audit records, newest first, at most `limit`, before an id or a time. */
  listAudit(options: SettingsAuditQuery): Promise<SettingsAuditRecord[]>;
  /**
   * Calls `onChange` soon (within seconds) after any process changes the
   * settings, and at least once after watching starts; returns a function
   * that stops watching.
   */
  watch(onChange: () => void): () => void;
}
