/** `openapi [FILE]`: writes the API document without opening a store. */
import type { Services } from "../core/services.ts";
import { createApp, openApiDocument } from "../routes/mod.ts";
import { buildInfo } from "./services.ts";

/** Writes the OpenAPI 3.1 document to `path`, or to stdout. */
export async function writeOpenApi(path?: string): Promise<void> {
  const build = await buildInfo();
  // Building the document only walks route declarations: no handler runs.
  const app = createApp({ build } as Services);
  const text = JSON.stringify(openApiDocument(app, build.version), null, 2) + "\n";
  if (path) await Deno.writeTextFile(path, text);
  else await Deno.stdout.write(new TextEncoder().encode(text));
}
