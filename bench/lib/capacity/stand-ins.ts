/**
 * The AWS a capacity or cost run talks to, on this machine: dynalite, s3rver for the tile bucket,
 * the KMS stand-in for the ledger key, a stand-in of Lambda's Invoke API for the functions a
 * section runs (the sequencer's part writers), and the accounting proxy (aws-proxy.ts) in front
 * of all four, in the bench's own process (which otherwise only waits: one process fewer to schedule on a
 * busy machine, and a call crosses one process boundary, as a call to AWS crosses one network).
 * Everything the bench starts (functions, the loader) runs in processes of its own and reaches AWS
 * only through the proxy, pointed there by the SDK's own endpoint variables; the bench then reads
 * the proxy's figures.
 *
 * The records are loaded as an operator loads them: `npm run load` in its own process, signing with
 * the KMS key and writing the tile log into the bucket.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { LEDGER_LOG } from '../../../functions/contract/site-paths';
import { startEmbeddedStore } from '../../../lib/local/embedded-store';
import { startKmsStandIn, type KmsStandIn } from '../../../lib/local/kms-stand-in';
import { startLambdaStandIn, type LocalInvoke } from '../../../lib/local/lambda-stand-in';
import { proxyControl, startAwsProxy } from './aws-proxy';

// s3rver ships no types: an S3-compatible server on the local file system.
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };

export const BENCH_REGION = 'eu-central-1';
export const BENCH_BUCKET = 'bench-tiles';
export const BENCH_ORIGIN = 'bench.example/ledger';

/** A client of the bench's bucket (s3rver checks signatures with its own key), through the proxy. */
export const benchS3Client = (aws: Pick<BenchAws, 'endpoints'>): S3Client =>
  new S3Client({ endpoint: aws.endpoints.s3, region: BENCH_REGION, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });

export interface BenchAws {
  /** The proxy's endpoints: what every process is given. */
  endpoints: { dynamodb: string; s3: string; kms: string; lambda: string };
  /** The functions Lambda's Invoke reaches here (the sequencer's part writers), by name: a section adds those it runs. */
  functions: Map<string, LocalInvoke>;
  control: ReturnType<typeof proxyControl>;
  kms: KmsStandIn;
  table: string;
  /** A folder of its own, removed on close. */
  work: string;
  /** The environment every process the bench starts gets, to reach AWS through the proxy. */
  awsEnvironment(): Record<string, string>;
  /** Loads a loader document (`npm run load`): through the proxy, its accounting off. */
  load(records: unknown[]): Promise<void>;
  close(): Promise<void>;
}

export async function startBenchAws(root: string, table = 'capacity-records'): Promise<BenchAws> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'bench-aws-'));
  const started: { close(): Promise<void> | void }[] = [];
  try {
    const store = await startEmbeddedStore();
    started.push(store);
    const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(work, 's3'), configureBuckets: [{ name: BENCH_BUCKET }] });
    const { port: s3Port } = await s3.run();
    started.push(s3);
    const kms = await startKmsStandIn(`arn:aws:kms:${BENCH_REGION}:111122223333:key/bench-ledger`);
    started.push(kms);
    const functions = new Map<string, LocalInvoke>();
    const lambda = await startLambdaStandIn((name) => functions.get(name));
    started.push(lambda);
    const running = await startAwsProxy({ dynamodb: store.endpoint, s3: `http://127.0.0.1:${s3Port}`, kms: kms.endpoint, lambda: lambda.endpoint });
    started.push(running);
    const proxy = { endpoints: { dynamodb: running.dynamodb, s3: running.s3!, kms: running.kms!, lambda: running.lambda! } };
    const control = proxyControl(proxy.endpoints.dynamodb);

    const awsEnvironment = (): Record<string, string> => ({
      AWS_REGION: BENCH_REGION,
      // s3rver's own key: it checks S3 signatures; the other stand-ins take any.
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoints.dynamodb,
      AWS_ENDPOINT_URL_S3: proxy.endpoints.s3,
      AWS_ENDPOINT_URL_KMS: proxy.endpoints.kms,
      AWS_ENDPOINT_URL_LAMBDA: proxy.endpoints.lambda,
    });

    const load = async (records: unknown[]) => {
      const file = path.join(work, `records-${Date.now()}.json`);
      await writeFile(file, JSON.stringify({ records }));
      await control.configure({ accounting: false, delayMs: 0 });
      const args = [
        '--import', 'tsx', path.join(root, 'bin/load.ts'), file,
        '--endpoint', proxy.endpoints.dynamodb, '--table', table, '--region', BENCH_REGION, '--create-table',
        '--kms-key', kms.keyId, '--origin', BENCH_ORIGIN, '--tiles-bucket', BENCH_BUCKET, '--tiles-prefix', LEDGER_LOG.keyPrefix,
      ];
      const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: work, ...awsEnvironment() }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d));
      child.stderr!.on('data', (d: Buffer) => (output += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      if (code !== 0) throw new Error(`npm run load failed (${code}): ${output.slice(-2000)}`);
      await control.configure({ accounting: true });
    };

    return {
      endpoints: proxy.endpoints,
      functions,
      control,
      kms,
      table,
      work,
      awsEnvironment,
      load,
      close: async () => {
        for (const s of started.reverse()) await s.close();
        await rm(work, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const s of started.reverse()) await s.close();
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}
