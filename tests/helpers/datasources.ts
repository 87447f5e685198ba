/**
 * Fresh datasources for tests: local disk in a temporary directory, or a new
 * bucket on the test task's s3rver (removed, with its objects, on dispose).
 */
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from "@aws-sdk/client-s3";
import type { Datasource } from "../../storage/datasource.ts";
import { LocalDatasource } from "../../storage/local.ts";
import { S3Datasource } from "../../storage/s3.ts";
import { S3RVER_CREDENTIALS, serviceUrl, skipWithout } from "./services.ts";

/** The datasource kinds file suites run on. */
export const DATASOURCE_KINDS = ["local", "s3"] as const;
/** A datasource kind. */
export type DatasourceKind = typeof DATASOURCE_KINDS[number];

/** An open test datasource. */
export interface TestDatasource {
  datasource: Datasource;
  /** Every stored object name (local: files under the root, staging excluded). */
  stored(): Promise<string[]>;
  /** The root directory of a local datasource. */
  directory?: string;
  dispose(): Promise<void>;
}

/** `true` when suites of this kind must be skipped (s3rver absent outside CI). */
export function ignoreDatasource(kind: DatasourceKind): boolean {
  return kind === "s3" && skipWithout("s3");
}

/** Opens a fresh, empty datasource of `kind`. */
export async function openTestDatasource(kind: DatasourceKind): Promise<TestDatasource> {
  if (kind === "local") {
    const dir = await Deno.makeTempDir({ prefix: "ferry-test-" });
    const datasource = new LocalDatasource(dir);
    return {
      datasource,
      directory: dir,
      stored: async () => {
        const names: string[] = [];
        for await (const entry of Deno.readDir(dir)) if (entry.isFile) names.push(entry.name);
        return names.sort();
      },
      dispose: async () => {
        await datasource.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  }
  return await openTestBucket();
}

/**
 * A fresh bucket on the test task's s3rver and an S3 datasource over it
 * (inside `subdirectory` when given). `stored` lists the bucket's raw keys.
 */
export async function openTestBucket(subdirectory = ""): Promise<TestDatasource> {
  const endpoint = serviceUrl("s3")!;
  const bucket = `ferry-test-${crypto.randomUUID()}`;
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  const datasource = new S3Datasource({
    endpoint,
    region: "us-east-1",
    bucket,
    forcePathStyle: true,
    subdirectory,
    ...S3RVER_CREDENTIALS,
  });
  const stored = async () => {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }),
      );
      keys.push(...(page.Contents ?? []).map((object) => object.Key!));
      ContinuationToken = page.NextContinuationToken;
    } while (ContinuationToken);
    return keys.sort();
  };
  return {
    datasource,
    stored,
    dispose: async () => {
      await datasource.close();
      for (const Key of await stored()) {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      }
      await client.send(new DeleteBucketCommand({ Bucket: bucket }));
      client.destroy();
    },
  };
}
