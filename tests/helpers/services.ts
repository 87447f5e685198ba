/**
 * What the test task (`tests/run.ts`) started for the tests, read from the
 * environment. A suite that needs a service asks here; when the service is
 * missing it is skipped, except under `CI`, where a missing service fails.
 */

/** The external services a suite may need. */
export type ServiceName = "postgres" | "s3";

const ENV: Record<ServiceName, string> = {
  postgres: "FERRY_TEST_DATABASE_URL",
  s3: "FERRY_TEST_S3_ENDPOINT",
};

/** The service's address (a Postgres superuser URL or an S3 endpoint URL), or `null`. */
export function serviceUrl(name: ServiceName): string | null {
  return Deno.env.get(ENV[name]) || null;
}

/**
 * `true` when a suite needing `name` should be skipped: the service is absent
 * and we are not in CI. Under CI an absent service throws, failing the run.
 */
export function skipWithout(name: ServiceName): boolean {
  if (serviceUrl(name)) return false;
  if (Deno.env.get("CI")) {
    throw new Error(
      `${ENV[name]} is not set: CI needs ${name}; run the tests with 'deno task test'`,
    );
  }
  return true;
}

/** The S3 credentials s3rver accepts. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
