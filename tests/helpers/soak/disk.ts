/**
 * The soak's full disk: a small tmpfs mounted for a local datasource (this
 * needs root, or a container allowed to mount), filled by uploads until they
 * are refused, checked for partial files and records, then freed.
 */
import { openPostgresStore } from "../../../db/postgres/mod.ts";
import { STORAGE_FOLDERS } from "../../../storage/datasource.ts";
import { Client, fileForm, type Recorder } from "./load.ts";
import { content } from "./data.ts";

/** A mounted tmpfs. */
export interface Mount {
  path: string;
  unmount(): Promise<void>;
}

/** What the disk phase saw. */
export interface DiskResult {
  accepted: number;
  refusal: { status: number; body: unknown } | null;
  observed: string[];
}

/** Mounts a tmpfs of `mib` MiB at `path`; `null` when this machine does not allow it. */
export async function mountTmpfs(path: string, mib: number): Promise<Mount | null> {
  await Deno.mkdir(path, { recursive: true });
  const run = (cmd: string, args: string[]) =>
    new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output()
      .then((r) => r.success, () => false);
  if (!(await run("mount", ["-t", "tmpfs", "-o", `size=${mib}m`, "tmpfs", path]))) return null;
  return { path, unmount: () => run("umount", ["-l", path]).then(() => {}) };
}

const FILE_BYTES = 2 * 1024 * 1024;

/**
 * Sets up the instance behind `client`, uploads 2 MiB files until one is
 * refused, checks that the refusal is a clear 507 and left no partial file or
 * record (from the directory and the store at `databaseUrl`), frees space and
 * uploads again.
 */
export async function fillDisk(
  anonymous: Client,
  recorder: Recorder,
  root: string,
  databaseUrl: string,
): Promise<DiskResult> {
  const result: DiskResult = { accepted: 0, refusal: null, observed: [] };
  await anonymous.send("setup", "POST", "/api/setup", {
    json: { username: "admin", password: "disk-admin-pw" },
  });
  const login = await fetch(`${anonymous.origin}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "disk-admin-pw" }),
  });
  await login.body?.cancel();
  const cookie = login.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  const client = new Client(anonymous.origin, recorder, { cookie });
  const ids: string[] = [];
  for (let i = 0; i < 64; i++) {
    const reply = await client.send("upload (disk filling)", "POST", "/api/upload", {
      body: fileForm(content(i + 1, 0, FILE_BYTES), `fill-${i}.bin`),
    });
    if (reply.status === 200) {
      ids.push(reply.body.files[0].id);
      continue;
    }
    result.refusal = { status: reply.status, body: reply.body };
    break;
  }
  result.accepted = ids.length;
  result.observed.push(
    `${ids.length} uploads of 2 MiB fitted; the next answered ${result.refusal?.status} ${
      JSON.stringify(result.refusal?.body)
    }`,
  );
  const refusal = result.refusal;
  if (!refusal) recorder.problem("the disk never filled");
  else if (
    refusal.status !== 507 || (refusal.body as { statusCode?: number })?.statusCode !== 507
  ) {
    recorder.problem(`a full disk answered ${refusal.status} ${JSON.stringify(refusal.body)}`);
  }

  // Nothing partial: no staging file, no pending record, every record whole on disk.
  const staged: string[] = [];
  try {
    for await (const entry of Deno.readDir(`${root}/${STORAGE_FOLDERS.staging}`)) {
      staged.push(entry.name);
    }
  } catch {
    // no staging folder: nothing staged
  }
  const store = await openPostgresStore(databaseUrl, { max: 1 });
  try {
    const onDisk = new Set<string>();
    for await (const entry of Deno.readDir(root)) if (entry.isFile) onDisk.add(entry.name);
    let records = 0;
    for await (const file of store.files.iterate()) {
      records++;
      if (file.pending) recorder.problem(`full disk: ${file.name} left a pending record`);
      else if (!onDisk.has(file.name)) recorder.problem(`full disk: ${file.name} has no bytes`);
      onDisk.delete(file.name);
    }
    if (staged.length) recorder.problem(`full disk: ${staged.length} staging files left`);
    if (onDisk.size) recorder.problem(`full disk: files without a record: ${[...onDisk]}`);
    result.observed.push(
      `after the refusal: ${records} records, ${staged.length} staging files, ${onDisk.size} files without a record`,
    );
  } finally {
    await store.close();
  }

  // Free three files; uploads work again.
  for (const id of ids.slice(0, 3)) {
    await client.send("delete file", "DELETE", `/api/user/files/${id}`);
  }
  const again = await client.send("upload (disk freed)", "POST", "/api/upload", {
    body: fileForm(content(999, 0, FILE_BYTES), "after.bin"),
  });
  result.observed.push(`after freeing 3 files an upload answered ${again.status}`);
  if (again.status !== 200) {
    recorder.problem(`after freeing the disk, an upload answered ${again.status}`);
  }
  return result;
}
