/**
 * A throwaway PostgreSQL cluster for the test task: its own data directory in
 * a temp dir, its own free port, trust auth, and durability switched off for
 * speed. Started by `tests/run.ts`, never by a test.
 */

/** A running throwaway cluster. */
export interface PostgresCluster {
  /** Superuser connection URL, e.g. `postgres://postgres@127.0.0.1:54321/postgres`. */
  url: string;
  /** The postmaster's process id at the first start (its backends are its children). */
  pid: number;
  /** Stops the server at once and deletes its data directory. */
  stop(): Promise<void>;
  /** Stops the server at once (as a crash would), keeping its data: `resume` starts it again. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port and data; resolves once it accepts connections. */
  resume(): Promise<void>;
}

/** The OS user that owns the cluster when we run as root (initdb refuses root). */
interface Owner {
  uid: number;
  gid: number;
}

/** How to start a cluster. */
export interface PostgresOptions {
  /**
   * Keep PostgreSQL's durability (fsync, synchronous commit): for tests that
   * crash the server ({@link PostgresCluster.halt}) and count on what was
   * committed before. Off by default, for speed.
   */
  durable?: boolean;
}

/**
 * Initialises a new cluster in a temp dir and starts it on a free port on
 * 127.0.0.1. Throws with the server log when it does not come up, and with an
 * install hint when no PostgreSQL server is installed.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresCluster> {
  const bin = await findBinDir();
  const owner = Deno.uid() === 0 ? await postgresUser() : null;
  const dir = await Deno.makeTempDir({ prefix: "ferry-pg-" });
  let started = false;
  try {
    if (owner) await Deno.chown(dir, owner.uid, owner.gid);
    const data = `${dir}/data`;
    const initdb = [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-locale",
      "--no-sync",
    ];
    await run(owner, dir, `${bin}/initdb`, initdb);
    const port = freePort();
    const serverOptions = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      ...(options.durable
        ? []
        : ["-c fsync=off -c synchronous_commit=off -c full_page_writes=off"]),
      "-c max_connections=200",
    ].join(" ");
    const log = `${dir}/log`;
    const start = async () => {
      try {
        const start = ["-D", data, "-o", serverOptions, "-w", "-l", log, "start"];
        await run(owner, dir, `${bin}/pg_ctl`, start);
      } catch (error) {
        const tail = await Deno.readTextFile(log).catch(() => "");
        throw new Error(`${(error as Error).message}\nserver log:\n${tail.slice(-4000)}`);
      }
    };
    const halt = () => run(owner, dir, `${bin}/pg_ctl`, ["-D", data, "-m", "immediate", "stop"]);
    await start();
    started = true;
    let stopped: Promise<void> | null = null;
    const pid = Number((await Deno.readTextFile(`${data}/postmaster.pid`)).split("\n")[0]);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      pid,
      stop() {
        stopped ??= halt()
          .catch(() => {}) // already gone: only the directory is left to remove
          .then(() => Deno.remove(dir, { recursive: true }));
        return stopped;
      },
      halt,
      resume: start,
    };
  } finally {
    if (!started) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * The directory holding `initdb` and `pg_ctl`: `pg_config --bindir`, else the
 * highest `/usr/lib/postgresql/<version>/bin` (Debian's layout), else `PATH`.
 */
async function findBinDir(): Promise<string> {
  const candidates: string[] = [];
  const pgConfig = await output("pg_config", ["--bindir"]);
  if (pgConfig) candidates.push(pgConfig.trim());
  const versions: number[] = [];
  try {
    for await (const entry of Deno.readDir("/usr/lib/postgresql")) {
      if (/^\d+(\.\d+)?$/.test(entry.name)) versions.push(Number(entry.name));
    }
  } catch {
    // no Debian-style install
  }
  versions.sort((a, b) => b - a);
  candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  candidates.push(...(Deno.env.get("PATH") ?? "").split(":").filter(Boolean));
  for (const dir of candidates) {
    if (await isFile(`${dir}/initdb`) && await isFile(`${dir}/pg_ctl`)) return dir;
  }
  throw new Error(
    "PostgreSQL server binaries (initdb, pg_ctl) not found via pg_config, /usr/lib/postgresql/*/bin " +
      "or PATH; install them, e.g. 'apt-get install postgresql'",
  );
}

/** The uid and gid of the `postgres` OS user, from `/etc/passwd`. */
async function postgresUser(): Promise<Owner> {
  const passwd = await Deno.readTextFile("/etc/passwd");
  for (const line of passwd.split("\n")) {
    const [name, , uid, gid] = line.split(":");
    if (name === "postgres") return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error(
    "running as root, but there is no 'postgres' OS user to own the test cluster " +
      "(initdb refuses to run as root)",
  );
}

/**
 * A free TCP port on 127.0.0.1, found by binding port 0 and closing it again.
 * Shared with the s3rver helper.
 */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Runs a PostgreSQL tool (as `owner` when given) and throws with its output when it fails. */
async function run(owner: Owner | null, cwd: string, cmd: string, args: string[]): Promise<void> {
  let result: Deno.CommandOutput;
  try {
    result = await new Deno.Command(cmd, {
      args,
      cwd,
      uid: owner?.uid,
      gid: owner?.gid,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    const user = owner ? ` as uid ${owner.uid}` : "";
    throw new Error(`could not run ${cmd}${user} in ${cwd}: ${(error as Error).message}`);
  }
  if (!result.success) {
    const text = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
    throw new Error(`${cmd} ${args.join(" ")} failed (exit ${result.code}):\n${text.trim()}`);
  }
}

/** A command's stdout, or `null` when it is missing or fails. */
async function output(cmd: string, args: string[]): Promise<string | null> {
  try {
    const result = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).output();
    return result.success ? new TextDecoder().decode(result.stdout) : null;
  } catch {
    return null;
  }
}

/** `true` when `path` is an existing file (following symlinks). */
async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
