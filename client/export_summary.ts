/**
 * What a Zipline export holds, read in the browser before it is imported:
 * its format (v3 or v4, from `versions.export`), the Zipline version and the
 * time and user that made it, how many records of each kind it has, the size
 * of its files, and its users (to choose the one merged into the importing
 * account). Read as a stream by {@link scanStream}, keeping only those
 * fields, so an export of hundreds of megabytes neither fills the memory nor
 * freezes the page.
 */
import { type JsonPath, type JsonScanHandlers, scanStream } from "./json_scan.ts";

/** A user of the export, as the merge picker lists it. */
export interface ExportUser {
  /** The id the import's merge option names (v4: `id`; v3: the user's key). */
  id: string;
  username: string;
  role: "USER" | "ADMIN" | "SUPERADMIN";
}

/** What the export holds. */
export interface ExportSummary {
  /** `versions.export`: `"3"`, `"4"`, or `null` when the file has none (not an export). */
  format: "3" | "4" | null;
  /** `versions.zipline`: the version of the server that made it. */
  zipline: string | null;
  /** `request.date`. */
  exportedAt: string | null;
  /** The name of the user who made it. */
  exportedBy: string | null;
  /** Records of each kind, in the order the import takes them. */
  counts: { kind: string; count: number }[];
  /** The files' sizes added up, in bytes (the bytes themselves are not in an export). */
  fileBytes: number;
  users: ExportUser[];
}

/** The collections of a v4 export (`data.<key>`) and what the page calls them. */
const V4_KINDS: readonly [string, string][] = [
  ["users", "users"],
  ["userOauthProviders", "OAuth links"],
  ["userQuotas", "quotas"],
  ["userPasskeys", "passkeys"],
  ["folders", "folders"],
  ["files", "files"],
  ["userTags", "tags"],
  ["urls", "URLs"],
  ["invites", "invites"],
  ["thumbnails", "thumbnails"],
  ["metrics", "metrics"],
];

/** The collections of a v3 export (top-level objects keyed by id). */
const V3_KINDS: readonly [string, string][] = [
  ["users", "users"],
  ["folders", "folders"],
  ["files", "files"],
  ["urls", "URLs"],
  ["invites", "invites"],
  ["thumbnails", "thumbnails"],
];

const V4_USER_FIELDS = new Set(["id", "username", "role"]);
const V3_USER_FIELDS = new Set(["username", "administrator", "super_administrator"]);

/** Gathers the summary's pieces while the scan runs; {@link summary} puts them together. */
class Gatherer implements JsonScanHandlers {
  versions: Record<string, unknown> = {};
  request: Record<string, unknown> = {};
  /** Members of each container one or two deep, by its path joined with `/`. */
  sizes = new Map<string, number>();
  /** Users by format and element (`4/0`, `3/<id>`), their fields as read. */
  users = new Map<string, Record<string, unknown>>();
  fileBytes = { "3": 0, "4": 0 };

  /**
   * Followed: `request`, v4's `data` and its users and files (each one's
   * fields), v3's users and files (keyed by id, each one's fields).
   */
  follow(parent: JsonPath, key: string | number): boolean {
    switch (parent.length) {
      case 0:
        return key === "data" || key === "request" || key === "users" || key === "files";
      case 1:
        return parent[0] === "data" ? key === "users" || key === "files" : parent[0] !== "request";
      case 2:
        return parent[0] === "data";
      default:
        return false;
    }
  }

  /** Wanted: `versions`, `request.date` and `.user`, each user's name and role, each file's size. */
  wants(parent: JsonPath, key: string | number): boolean {
    switch (parent.length) {
      case 0:
        return key === "versions";
      case 1:
        return parent[0] === "request" && (key === "date" || key === "user");
      case 2:
        return key === "size" ? parent[0] === "files" : parent[0] === "users" &&
          V3_USER_FIELDS.has(key as string);
      case 3:
        return parent[0] === "data" &&
          (key === "size" ? parent[1] === "files" : parent[1] === "users" &&
            V4_USER_FIELDS.has(key as string));
      default:
        return false;
    }
  }

  value(path: JsonPath, value: unknown): void {
    if (path[0] === "versions" && value && typeof value === "object") {
      this.versions = value as Record<string, unknown>;
    } else if (path[0] === "request") this.request[path[1] as string] = value;
    else if (path.at(-1) === "size" && typeof value === "number") {
      this.fileBytes[path[0] === "data" ? "4" : "3"] += value;
    } else if (path[0] === "data" || path[0] === "users") {
      const v4 = path[0] === "data";
      const key = v4 ? `4/${path[2]}` : `3/${path[1]}`;
      const user = this.users.get(key) ?? (v4 ? {} : { id: path[1] });
      user[path.at(-1) as string] = value;
      this.users.set(key, user);
    }
  }

  closed(path: JsonPath, members: number): void {
    if (path.length === 1 || path.length === 2) this.sizes.set(path.join("/"), members);
  }
}

/** The v3 role of a user record's two flags. */
function v3Role(user: Record<string, unknown>): ExportUser["role"] {
  return user.super_administrator === true
    ? "SUPERADMIN"
    : user.administrator === true
    ? "ADMIN"
    : "USER";
}

/** The summary of what `g` gathered. */
function summary(g: Gatherer): ExportSummary {
  const marker = String(g.versions.export ?? "");
  const format = marker === "3" || marker === "4" ? marker : null;
  const v4 = format === "4";
  const prefix = v4 ? "data/" : "";
  const counts = format === null ? [] : (v4 ? V4_KINDS : V3_KINDS)
    .filter(([key]) => g.sizes.has(prefix + key))
    .map(([key, kind]) => ({ kind, count: g.sizes.get(prefix + key)! }));
  const users: ExportUser[] = [];
  for (const [key, user] of g.users) {
    if (key.startsWith(v4 ? "4/" : "3/") && typeof user.username === "string") {
      users.push({
        id: String(user.id ?? ""),
        username: user.username,
        role: v4
          ? (["ADMIN", "SUPERADMIN"].includes(String(user.role))
            ? user.role as ExportUser["role"]
            : "USER")
          : v3Role(user),
      });
    }
  }
  const by = typeof g.request.user === "string" ? g.request.user : null;
  return {
    format,
    zipline: typeof g.versions.zipline === "string" ? g.versions.zipline : null,
    exportedAt: typeof g.request.date === "string" ? g.request.date : null,
    exportedBy: by === null
      ? null
      : v4
      ? by.slice(by.indexOf(":") + 1)
      : users.find((u) => u.id === by)?.username ?? null,
    counts,
    fileBytes: format === null ? 0 : g.fileBytes[format],
    users: format === null ? [] : users,
  };
}

/**
 * Reads what the export `file` holds, reporting the bytes read to `progress`;
 * throws `JsonScanError` when the file is not JSON, and the signal's reason
 * when `signal` aborts.
 */
export async function summarizeExport(
  file: Blob,
  options: { progress?: (bytes: number) => void; signal?: AbortSignal } = {},
): Promise<ExportSummary> {
  const gatherer = new Gatherer();
  await scanStream(file.stream(), gatherer, options);
  return summary(gatherer);
}
