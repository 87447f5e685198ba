/**
 * Instance settings (`data.settings`). Ferry's keys are Zipline's, except that
 * its `discord*` webhook keys are named `chat*` here. An import of settings
 * goes through the settings registry's validation, leniently: unknown keys
 * are ignored, invalid ones are reported and left out.
 */
import type { Issue } from "../../errors.ts";
import type { ImportContext } from "../context.ts";
import type { Services } from "../../services.ts";

const rename = (key: string, from: string, to: string) =>
  key.startsWith(from) ? to + key.slice(from.length) : key;

/** The settings as Zipline names them, for an export. */
export function exportSettings(s: Services): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(s.settings.all()).map(([key, value]) => [rename(key, "chat", "discord"), value]),
  );
}

/**
 * Writes the valid keys of an exported settings object inside the import's
 * transaction; returns the keys written and the issues of those left out.
 */
export async function importSettings(
  ctx: ImportContext,
  exported: Record<string, unknown>,
): Promise<{ imported: string[]; invalid: Issue[] }> {
  const body = Object.fromEntries(
    Object.entries(exported).map(([key, value]) => [rename(key, "discord", "chat"), value]),
  );
  const { values, changes, issues } = await ctx.s.settings.validateImport(body);
  for (const issue of issues) {
    ctx.s.logger.warn("import: setting left out", {
      key: issue.path.join("."),
      reason: issue.message,
    });
  }
  if (changes.length > 0) {
    await ctx.store.settings.update(values, {
      at: ctx.now,
      userId: ctx.caller?.id ?? "",
      username: ctx.caller?.username ?? "import",
      changes,
    });
  }
  return { imported: changes.map((c) => c.key), invalid: issues };
}
