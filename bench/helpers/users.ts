/** The users the HTTP benchmarks fill their stores with. */
import { systemClock, systemRandom } from "../../core/clock.ts";
import type { Services } from "../../core/services.ts";
import { buildUser } from "../../core/users.ts";
import type { Role, UserRecord, UserStore } from "../../db/users.ts";

/**
 * Fills an empty store with one SUPERADMIN `admin` and USERs `user0001`… up to
 * `count` users in all; every one gets `passwordHash` (none: token auth only).
 * Returns the SUPERADMIN first, then the USERs.
 */
export async function populateUsers(
  store: { users: UserStore },
  count: number,
  passwordHash: string | null = null,
): Promise<UserRecord[]> {
  const s = { clock: systemClock, random: systemRandom } as Pick<Services, "clock" | "random">;
  const make = async (username: string, role: Role) => ({
    ...(await buildUser(s as Services, { username, password: null, role })),
    password: passwordHash,
  });
  const admin = await make("admin", "SUPERADMIN");
  await store.users.create(admin);
  const users: UserRecord[] = [];
  for (let i = 1; i < count; i++) {
    users.push(await make(`user${String(i).padStart(4, "0")}`, "USER"));
  }
  for (let i = 0; i < users.length; i += 50) {
    await Promise.all(users.slice(i, i + 50).map((u) => store.users.create(u)));
  }
  return [admin, ...users];
}
