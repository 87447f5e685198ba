/**
 * Ferry: self-hosted file sharing and URL shortening, one program.
 *
 *   main.ts [serve]                      run the server (the default)
 *   main.ts migrate                      bring the store's schema up to date
 *   main.ts user create|reset-password   manage users from the shell
 *   main.ts openapi [FILE]               write the OpenAPI document
 */
import { serve } from "./cli/serve.ts";
import { closeServices, loadConfig, openServices } from "./cli/services.ts";
import { userCommand } from "./cli/user.ts";
import { writeOpenApi } from "./cli/openapi.ts";

const [command = "serve", ...rest] = Deno.args;

switch (command) {
  case "serve":
    await serve(loadConfig());
    break;
  case "migrate": {
    const services = await openServices(loadConfig());
    console.log(
      `${services.store.kind} store is at schema version ${await services.store.schemaVersion()}`,
    );
    await closeServices(services);
    break;
  }
  case "user":
    Deno.exit(await userCommand(loadConfig(), rest));
    break;
  case "openapi":
    await writeOpenApi(rest[0]);
    break;
  default:
    console.error(`unknown command ${command}; try serve, migrate, user, openapi`);
    Deno.exit(2);
}
