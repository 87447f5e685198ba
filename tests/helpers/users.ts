/** Users for API tests: created in the store, authenticated by API token or session. */
import { tokenFor } from "../../core/account.ts";
import { createUser } from "../../core/users.ts";
import type { Role, UserRecord } from "../../db/users.ts";
import type { TestApp } from "./app.ts";

/** A test user with the headers that authenticate it. */
export interface Actor {
  user: UserRecord;
  /** `{authorization: <API token>}` */
  headers: Record<string, string>;
}

let counter = 0;

/** Creates a user of `role` (password `password`) and returns it with its token header. */
export async function actor(app: TestApp, role: Role, username?: string): Promise<Actor> {
  app.clock.advance(1);
  const user = await createUser(app.services, {
    username: username ?? `${role.toLowerCase()}${++counter}`,
    password: "password",
    role,
  });
  return { user, headers: { authorization: tokenFor(app.services, user) } };
}
