/** `parseConfig`: defaults, each variable's validation, and `NAME_FILE`. */
import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../cli/config.ts";

const SECRET = "s".repeat(32);
const S3 = {
  SERVICE_DATASOURCE_TYPE: "s3",
  SERVICE_DATASOURCE_S3_BUCKET: "ferry",
  SERVICE_DATASOURCE_S3_ACCESS_KEY_ID: "key",
  SERVICE_DATASOURCE_S3_SECRET_ACCESS_KEY: "secret",
};

/** Parses `env`, with `files` as the only readable files. */
function parse(env: Record<string, string>, files: Record<string, string> = {}) {
  return parseConfig(env, (path) => {
    if (path in files) return files[path];
    throw new Deno.errors.NotFound(`No such file or directory: ${path}`);
  });
}

/** Asserts that `env` is rejected with a message that starts with `name`. */
function rejects(env: Record<string, string>, name: string, files?: Record<string, string>) {
  assert.throws(() => parse(env, files), (error) => {
    assert.ok(error instanceof ConfigError, String(error));
    assert.ok(error.message.startsWith(`${name}:`), error.message);
    return true;
  });
}

Deno.test("config: no variables gives port 3000, KV and local files under ./data", () => {
  assert.deepEqual(parse({}), {
    port: 3000,
    hostname: "0.0.0.0",
    secret: undefined,
    dataDir: "./data",
    themesDirectory: "./themes",
    databaseUrl: undefined,
    datasource: { type: "local", directory: "data/uploads" },
  });
});

Deno.test("config: an empty variable counts as unset", () => {
  assert.equal(parse({ SERVICE_PORT: "", SERVICE_SECRET: "" }).port, 3000);
});

Deno.test("config: port and hostname", () => {
  const config = parse({ SERVICE_PORT: "8080", SERVICE_HOSTNAME: "127.0.0.1" });
  assert.equal(config.port, 8080);
  assert.equal(config.hostname, "127.0.0.1");
  rejects({ SERVICE_PORT: "abc" }, "SERVICE_PORT");
  rejects({ SERVICE_PORT: "70000" }, "SERVICE_PORT");
  rejects({ SERVICE_PORT: "80.5" }, "SERVICE_PORT");
});

Deno.test("config: the data dir holds the uploads unless a local directory is given", () => {
  assert.deepEqual(parse({ SERVICE_DATA_DIR: "/srv/ferry" }).datasource, {
    type: "local",
    directory: "/srv/ferry/uploads",
  });
  const config = parse({
    SERVICE_DATA_DIR: "/srv/ferry",
    SERVICE_DATASOURCE_LOCAL_DIRECTORY: "/mnt/files",
  });
  assert.equal(config.dataDir, "/srv/ferry");
  assert.deepEqual(config.datasource, { type: "local", directory: "/mnt/files" });
});

Deno.test("config: SERVICE_SECRET needs at least 32 characters", () => {
  assert.equal(parse({ SERVICE_SECRET: SECRET }).secret, SECRET);
  rejects({ SERVICE_SECRET: SECRET.slice(1) }, "SERVICE_SECRET");
});

Deno.test("config: NAME_FILE is read, without its trailing newline", () => {
  const files = { "/run/secrets/unix": `${SECRET}\n`, "/run/secrets/dos": `${SECRET}\r\n` };
  assert.equal(parse({ SERVICE_SECRET_FILE: "/run/secrets/unix" }, files).secret, SECRET);
  assert.equal(parse({ SERVICE_SECRET_FILE: "/run/secrets/dos" }, files).secret, SECRET);
  assert.equal(parse({ SERVICE_PORT_FILE: "/port" }, { "/port": "4000\n" }).port, 4000);
});

Deno.test("config: a variable set directly wins over its NAME_FILE", () => {
  const config = parse({ SERVICE_PORT: "4000", SERVICE_PORT_FILE: "/port" }, { "/port": "5000" });
  assert.equal(config.port, 4000);
});

Deno.test("config: an unreadable NAME_FILE is an error naming it and the path", () => {
  assert.throws(
    () => parse({ SERVICE_SECRET_FILE: "/run/secrets/missing" }),
    (error) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /^SERVICE_SECRET_FILE: cannot read \/run\/secrets\/missing/);
      return true;
    },
  );
});

Deno.test("config: a value read from NAME_FILE is validated like the variable", () => {
  rejects({ SERVICE_SECRET_FILE: "/short" }, "SERVICE_SECRET", { "/short": "short\n" });
});

Deno.test("config: DATABASE_URL must be a postgres:// URL", () => {
  for (const url of ["postgres://u@db/ferry", "postgresql://u:p@db:5432/ferry"]) {
    assert.equal(parse({ DATABASE_URL: url }).databaseUrl, url);
  }
  rejects({ DATABASE_URL: "mysql://u@db/ferry" }, "DATABASE_URL");
  rejects({ DATABASE_URL: "db.example.com" }, "DATABASE_URL");
});

Deno.test("config: the s3 datasource takes its settings, with defaults", () => {
  assert.deepEqual(parse(S3).datasource, {
    type: "s3",
    endpoint: undefined,
    region: "us-east-1",
    bucket: "ferry",
    accessKeyId: "key",
    secretAccessKey: "secret",
    forcePathStyle: false,
    subdirectory: undefined,
  });
  const custom = parse({
    ...S3,
    SERVICE_DATASOURCE_S3_ENDPOINT: "http://127.0.0.1:9000",
    SERVICE_DATASOURCE_S3_REGION: "eu-central-1",
    SERVICE_DATASOURCE_S3_FORCE_PATH_STYLE: "true",
    SERVICE_DATASOURCE_S3_SUBDIRECTORY: "ferry/files",
  });
  assert.deepEqual(custom.datasource, {
    type: "s3",
    endpoint: "http://127.0.0.1:9000",
    region: "eu-central-1",
    bucket: "ferry",
    accessKeyId: "key",
    secretAccessKey: "secret",
    forcePathStyle: true,
    subdirectory: "ferry/files",
  });
});

Deno.test("config: the s3 datasource requires a bucket and both keys", () => {
  for (const name of Object.keys(S3).filter((k) => k !== "SERVICE_DATASOURCE_TYPE")) {
    const env: Record<string, string> = { ...S3 };
    delete env[name];
    rejects(env, name);
  }
  rejects({ ...S3, SERVICE_DATASOURCE_S3_ENDPOINT: "not a url" }, "SERVICE_DATASOURCE_S3_ENDPOINT");
  rejects({ SERVICE_DATASOURCE_TYPE: "ftp" }, "SERVICE_DATASOURCE_TYPE");
});

Deno.test("config: booleans are true/false or 1/0", () => {
  const forcePathStyle = (value: string) => {
    const { datasource } = parse({ ...S3, SERVICE_DATASOURCE_S3_FORCE_PATH_STYLE: value });
    return datasource.type === "s3" && datasource.forcePathStyle;
  };
  assert.equal(forcePathStyle("true"), true);
  assert.equal(forcePathStyle("1"), true);
  assert.equal(forcePathStyle("false"), false);
  assert.equal(forcePathStyle("0"), false);
  for (const value of ["yes", "TRUE", "on"]) {
    rejects(
      { ...S3, SERVICE_DATASOURCE_S3_FORCE_PATH_STYLE: value },
      "SERVICE_DATASOURCE_S3_FORCE_PATH_STYLE",
    );
  }
});
