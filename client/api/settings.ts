/// <reference lib="dom" />
/**
 * The dashboard's calls to the server settings routes (`/api/server/settings`
 * and its registry), typed from the server's own zod schemas (type-only
 * imports: nothing of the server is bundled).
 */
import type { z } from "zod";
import type {
  AuditRecordSchema,
  SettingsPatchBody,
  SettingsViewSchema,
} from "../../routes/settings.ts";
import type { SettingsRegistrySchema } from "../../routes/settings_registry.ts";
import { api } from "../api.ts";

/** The categories and every key's label, help text, control, default and marks. */
export type Registry = z.infer<typeof SettingsRegistrySchema>;
/** What the registry knows of one key. */
export type SettingMeta = Registry["settings"][number];
/** Every setting's value, the keys the environment pins and the secrets that are set. */
export type SettingsView = Omit<z.infer<typeof SettingsViewSchema>, "settings"> & {
  /** Each key's value (read through its {@link SettingMeta}). */
  settings: Record<string, unknown>;
};

/** The settings registry. */
export function getRegistry(): Promise<Registry> {
  return api<Registry>("GET", "/api/server/settings/registry");
}

/** Every setting. */
export function getSettings(): Promise<SettingsView> {
  return api<SettingsView>("GET", "/api/server/settings");
}

/** Changes the keys of `changes`, all or none; the settings after. */
export function saveSettings(changes: z.input<typeof SettingsPatchBody>): Promise<SettingsView> {
  return api<SettingsView>("PATCH", "/api/server/settings", changes);
}

/** One settings change in the audit trail. */
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

/** The newest `limit` records of the settings audit trail. */
export function auditTrail(limit: number): Promise<AuditRecord[]> {
  return api<AuditRecord[]>("GET", `/api/server/audit?limit=${limit}`);
}
