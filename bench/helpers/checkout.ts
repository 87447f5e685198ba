/**
 * Another commit of Ferry to measure beside this checkout: a temporary `git
 * worktree` (removed by the benchmark's cleanups), and the store openers of
 * a checkout, so that each build fills its stores with its own code.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { cleanups } from "./cleanup.ts";
import { REPO_ROOT } from "./server.ts";

/** A checked-out commit. */
export interface Checkout {
  /** Its directory: the working directory of its servers. */
  root: string;
  /** The full commit id. */
  commit: string;
  /** `<short id> <subject>`, for the results. */
  title: string;
}

/** `git <args>` in this repository; its trimmed stdout, or throws with its stderr. */
async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${text(out.stderr)}`);
  return text(out.stdout);
}

/** The commit `ref` names, and its title. */
export async function describeCommit(ref: string): Promise<Omit<Checkout, "root">> {
  const commit = await git(["rev-parse", "--verify", `${ref}^{commit}`]);
  return { commit, title: await git(["log", "-1", "--format=%h %s", commit]) };
}

/**
 * Checks `ref` out, detached, into a temporary worktree; a cleanup removes
 * the worktree (and its directory) when the benchmark ends.
 */
export async function worktreeAt(ref: string): Promise<Checkout> {
  const described = await describeCommit(ref);
  const parent = await Deno.makeTempDir({ prefix: "ferry-bench-checkout-" });
  const root = join(parent, "ferry");
  await git(["worktree", "add", "--detach", root, described.commit]);
  cleanups.push(async () => {
    await git(["worktree", "remove", "--force", root]).catch((e) => console.error(e.message));
    await Deno.remove(parent, { recursive: true }).catch(() => {});
    await git(["worktree", "prune"]);
  });
  return { root, ...described };
}

/**
 * A store as a checkout opens it: a `Store` in older ones, a plain backend
 * (`db/store.ts`) since the serving store; both have the areas the
 * benchmarks fill (`users`, `files`, `urls`), with the same methods.
 */
export interface CheckoutStore {
  close(): Promise<void>;
}

/** How a checkout opens its stores and fills them with users, with its own code. */
export interface Openers {
  openKvStore(path: string): Promise<CheckoutStore>;
  openPostgresStore(url: string): Promise<CheckoutStore>;
  populateUsers(store: CheckoutStore, count: number): Promise<{ token: string }[]>;
}

/**
 * The {@link Openers} of the checkout at `root`: a store is then at the
 * schema its server expects (an older checkout refuses a newer one).
 */
export async function openersOf(root: string): Promise<Openers> {
  const module = (path: string) => import(pathToFileURL(join(resolve(root), path)).href);
  const [kv, pg, users] = await Promise.all([
    module("db/kv/mod.ts"),
    module("db/postgres/mod.ts"),
    module("bench/helpers/users.ts"),
  ]);
  return { ...kv, ...pg, ...users };
}
