/** `export [--nometrics]`: writes the instance's v4 export document to stdout, straight from the store. */
import { parseArgs } from "node:util";
import type { Config } from "./config.ts";
import { exportStream } from "../core/transfer/export.ts";
import { stderrLogger } from "../core/log.ts";
import { closeServices, openServices } from "./services.ts";

/** Runs `export`; returns the exit code. */
export async function exportCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { nometrics: { type: "boolean" } } });
  const s = await openServices(config, stderrLogger);
  try {
    const superadmin = (await s.store.users.list()).find((u) => u.role === "SUPERADMIN") ?? null;
    await exportStream(s, superadmin, { nometrics: values.nometrics }).pipeTo(
      Deno.stdout.writable,
      { preventClose: true },
    );
    return 0;
  } finally {
    await closeServices(s);
  }
}
