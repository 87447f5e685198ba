/**
 * The PostgreSQL migrations, in order. Each is applied once, in its own
 * transaction, and recorded in `schema_migrations`. Never edit one that has
 * shipped: add the next.
 */
import { sql as init } from "./001_init.ts";
import { sql as settingsAudit } from "./002_settings_audit.ts";
import { sql as rateLimits } from "./003_rate_limits.ts";

/** One versioned migration. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration, oldest first. */
export const MIGRATIONS: Migration[] = [
  { version: 1, name: "init", sql: init },
  { version: 2, name: "settings_audit", sql: settingsAudit },
  { version: 3, name: "rate_limits", sql: rateLimits },
];
