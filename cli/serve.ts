/** `serve`: the HTTP server, with graceful shutdown on SIGINT and SIGTERM. */
import type { Config } from "./config.ts";
import { WebhookWorker } from "../core/webhooks/worker.ts";
import { settleStagedUploads } from "../core/files/staged_uploads.ts";
import { TaskRunner } from "../core/tasks/runner.ts";
import { createHandler } from "../routes/mod.ts";
import { closeServices, openServices } from "./services.ts";

/** Runs the server until a signal asks it to stop. */
export async function serve(config: Config): Promise<void> {
  const services = await openServices(config);
  // Uploads stopped by the last exit between their commit and their bytes' publishing.
  await settleStagedUploads(services).catch((error) =>
    services.logger.error("could not settle staged uploads", { error: String(error) })
  );
  services.settings.start();
  // The image pool's worker is not started here: it starts with the first image task, which
  // waits some milliseconds more for it (bench/results/memory.md), where a server that never
  // makes a thumbnail would hold its memory from boot.
  const webhooks = new WebhookWorker(services);
  webhooks.start();
  const tasks = new TaskRunner(services);
  tasks.start();
  const { fetch } = createHandler(services, { logRequests: true });
  const server = Deno.serve({
    port: config.port,
    hostname: config.hostname,
    onListen: ({ hostname, port }) =>
      services.logger.info("listening", {
        url: `http://${hostname}:${port}`,
        store: services.store.kind,
        datasource: services.datasource.kind,
        version: services.build.version,
      }),
  }, fetch);

  let stopping: Promise<void> | undefined;
  const stop = (signal: string) => {
    stopping ??= (async () => {
      services.logger.info("shutting down: finishing in-flight requests", { signal });
      // The background tasks are aborted at once (each stops at its next page, user or file),
      // while the requests in flight finish.
      await Promise.all([server.shutdown(), tasks.stop()]);
      await webhooks.stop();
      await closeServices(services);
      services.logger.info("stopped");
    })();
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
  await server.finished;
  await stopping;
}
