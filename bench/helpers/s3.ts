/** S3 for benchmarks: a fresh bucket on an s3rver, and the server environment that uses it. */
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import type { S3rver } from "../../tests/helpers/s3rver.ts";
import { S3RVER_CREDENTIALS } from "../../tests/helpers/services.ts";

/** Creates a fresh bucket on `s3` and answers Ferry's environment for an S3 datasource in it. */
export async function s3BucketEnv(s3: S3rver, prefix: string): Promise<Record<string, string>> {
  const bucket = `${prefix}-${crypto.randomUUID()}`;
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    SERVICE_DATASOURCE_TYPE: "s3",
    SERVICE_DATASOURCE_S3_ENDPOINT: s3.endpoint,
    SERVICE_DATASOURCE_S3_BUCKET: bucket,
    SERVICE_DATASOURCE_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    SERVICE_DATASOURCE_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    SERVICE_DATASOURCE_S3_FORCE_PATH_STYLE: "true",
  };
}
