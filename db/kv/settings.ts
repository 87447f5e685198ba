/**
 * The settings on Deno KV: one key per setting, the version under
 * `["meta", "settings_version"]`, and the audit trail by version.
 */
import type {
  SettingsAuditDraft,
  SettingsAuditQuery,
  SettingsAuditRecord,
  SettingsStore,
} from "../settings.ts";
import { commitChecked } from "./helpers.ts";

const VERSION: Deno.KvKey = ["meta", "settings_version"];
const AUDIT: Deno.KvKey = ["settings_audit"];
const setting = (key: string): Deno.KvKey => ["setting", key];

/** {@link SettingsStore} on Deno KV. */
export class KvSettings implements SettingsStore {
  constructor(private readonly kv: Deno.Kv) {}

  async read(): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    for await (const entry of this.kv.list({ prefix: ["setting"] })) {
      values[entry.key[1] as string] = entry.value;
    }
    return values;
  }

  async update(values: Record<string, unknown>, audit?: SettingsAuditDraft): Promise<number> {
    return await commitChecked(async () => {
      const current = await this.kv.get<number>(VERSION);
      const version = (current.value ?? 0) + 1;
      const op = this.kv.atomic().check(current).set(VERSION, version);
      for (const [key, value] of Object.entries(values)) op.set(setting(key), value);
      if (audit) op.set([...AUDIT, version], { ...audit, id: version });
      return { op, result: version };
    });
  }

  async listAudit({ limit, before }: SettingsAuditQuery): Promise<SettingsAuditRecord[]> {
    const prefix = AUDIT;
    const selector = typeof before === "number" ? { prefix, end: [...prefix, before] } : { prefix };
    const records: SettingsAuditRecord[] = [];
    for await (const entry of this.kv.list<SettingsAuditRecord>(selector, { reverse: true })) {
      if (before instanceof Date && entry.value.at >= before) continue;
      records.push(entry.value);
      if (records.length >= limit) break;
    }
    return records;
  }

  /**
   * `kv.watch` reports changes made through this process (and, on Deno
   * Deploy, any isolate); processes sharing a local KV file do not see each
   * other's writes through it, so the version is also polled every 2 seconds.
   */
  watch(onChange: () => void): () => void {
    let last: number | null | undefined;
    const seen = (version: number | null) => {
      if (version !== last) onChange();
      last = version;
    };
    const reader = this.kv.watch<[number]>([VERSION]).getReader();
    (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) seen(r.value[0].value);
    })().catch(() => {});
    const timer = setInterval(() => {
      this.kv.get<number>(VERSION).then((e) => seen(e.value), () => {});
    }, 2000);
    return () => {
      clearInterval(timer);
      reader.cancel().catch(() => {});
    };
  }
}
