/**
 * Quotas (spec §2.3): `BY_BYTES` needs `maxBytes`, `BY_FILES` needs
 * `maxFiles`, `NONE` removes file limits; `maxUrls` stands apart. A patch is
 * merged onto the current quota, then checked as a whole.
 */
import type { FileLimits } from "../db/files.ts";
import type { QuotaRecord } from "../db/users.ts";
import { newId, type Random } from "./clock.ts";
import { badRequest } from "./errors.ts";
import { parseSize } from "./units/size.ts";

/** A quota change as `PATCH /api/users/:id` takes it. */
export interface QuotaInput {
  filesType?: QuotaRecord["filesQuota"];
  maxBytes?: string | null;
  maxFiles?: number | null;
  maxUrls?: number | null;
}

/** The quota after `input`; 400 for an incomplete or invalid configuration. */
export function applyQuota(
  current: QuotaRecord | null,
  input: QuotaInput,
  random: Random,
  now: number,
): QuotaRecord {
  const mode = input.filesType ?? current?.filesQuota ?? "NONE";
  const pick = <K extends "maxBytes" | "maxFiles" | "maxUrls">(key: K) =>
    input[key] !== undefined ? input[key] : current?.[key] ?? null;
  const maxBytes = mode === "BY_BYTES" ? pick("maxBytes") : null;
  const maxFiles = mode === "BY_FILES" ? pick("maxFiles") : null;
  if (mode === "BY_BYTES") {
    if (maxBytes === null) throw badRequest("maxBytes is required");
    const bytes = parseSize(maxBytes);
    if (bytes === null || bytes <= 0) {
      throw badRequest("maxBytes must be a size greater than 0, such as 50gb");
    }
  }
  if (mode === "BY_FILES" && maxFiles === null) throw badRequest("maxFiles is required");
  return {
    id: current?.id ?? newId(random, now),
    filesQuota: mode,
    maxBytes,
    maxFiles,
    maxUrls: pick("maxUrls"),
  };
}

/** A quota in numbers, as uploads (and short URLs, with `maxUrls`) are checked against it. */
export interface QuotaLimits extends FileLimits {
  maxUrls: number | null;
}

/** The numeric limits of `quota`; every field `null` (no limit) when there is none. */
export function quotaLimits(quota: QuotaRecord | null): QuotaLimits {
  return {
    maxBytes: quota?.filesQuota === "BY_BYTES" && quota.maxBytes !== null
      ? parseSize(quota.maxBytes)
      : null,
    maxFiles: quota?.filesQuota === "BY_FILES" ? quota.maxFiles : null,
    maxUrls: quota?.maxUrls ?? null,
  };
}

/** How a quota reads in error messages: `10gb`, `5 files`. */
export function quotaLabel(quota: QuotaRecord | null): string {
  if (quota?.filesQuota === "BY_FILES") return `${quota.maxFiles} files`;
  return quota?.maxBytes ?? "unlimited";
}
