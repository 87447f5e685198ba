/**
 * CPU time of processes, read from `/proc/<pid>/stat` (Linux): user plus
 * system time is what a process cost the machine, whatever else shared the
 * CPUs meanwhile — steadier on a shared machine than requests per second.
 */

/** Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The fields of `/proc/<pid>/stat` after the command name, or `null` once the process is gone. */
async function statFields(pid: number): Promise<string[] | null> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/**
 * CPU seconds used by `pid`, by its children that have exited, and by its
 * live children (a PostgreSQL postmaster and its backends, say).
 */
export async function treeCpuSeconds(pid: number): Promise<number> {
  const own = await statFields(pid);
  if (!own) throw new Error(`no process ${pid}`);
  // Fields 14–17 of stat(5): utime, stime, cutime, cstime; index 0 here is field 3.
  let ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(own[i]), 0);
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const child = await statFields(Number(entry.name));
    if (child && Number(child[1]) === pid) ticks += Number(child[11]) + Number(child[12]);
  }
  return ticks / TICKS_PER_SECOND;
}

/**
 * CPU seconds used by each kind of thread of `pid`, by thread name with its
 * number dropped (`deno` is the main thread, `tokio-runtime-w` the blocking
 * pool that runs file-system calls, `sw-0` Deno KV's SQLite writer).
 */
export async function threadCpuSeconds(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/stat`);
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[-\d]+$/, "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    byName.set(name, (byName.get(name) ?? 0) + seconds);
  }
  return byName;
}

/**
 * CPU seconds used by the live backends of PostgreSQL's `postmaster` that
 * serve database `database` (their process title, `postgres: <user>
 * <database> …`, names it): a server's share of a cluster two servers use.
 * A backend that exited meanwhile is not counted (a server's pool keeps
 * its connections).
 */
export async function databaseCpuSeconds(postmaster: number, database: string): Promise<number> {
  let ticks = 0;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const fields = await statFields(Number(entry.name));
    if (!fields || Number(fields[1]) !== postmaster) continue;
    let title: string;
    try {
      title = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
    } catch {
      continue; // it exited meanwhile
    }
    if (title.split(/[\s\0]+/)[2] === database) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}
