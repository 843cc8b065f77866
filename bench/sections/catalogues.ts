/**
 * Catalogues: the time to serve a built developer document locally (HTTP, p50/p99, 200 and 304),
 * the assets function (in-process latency, bundle size, cold init and first request), and the
 * design not taken for it, a function reading the built document from S3 (s3rver stands in for
 * the bucket), measured the same way so the choice rests on figures.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { logger } from '../../functions/logging/logger';
import { startLocalServer } from '../../lib/local/server';
import { buildSite, writeSite } from '../../lib/publish/site';
import { canonicalSources } from '../../lib/publish/sources';
import { BENCH_LOG_LEVEL, nodeOptionsFor } from '../../lib/stack/bundling';
import { bundle } from '../lib/bundle';
import { coldInit } from '../lib/cold-start';
import { lambdaContext, getEvent, type LambdaHandler } from '../lib/events';
import { median, percentile, round, timeCalls } from '../lib/stats';
import type { BenchRow, BenchSection } from '../lib/types';

const run = promisify(execFile);
const WARMUP = 50;
const ITERATIONS = 500;
const COLD_STARTS = 5;
const BUCKET = 'catalogue';

async function httpRows(base: string, site: Map<string, string>): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const documents = ['developers/catalogue.json', 'developers/openapi.json'];
  for (const key of documents) {
    const url = `${base}/${key}`;
    const kib = round(Buffer.byteLength(site.get(key)!) / 1024, 1);
    const full = await timeCalls(async () => {
      const res = await fetch(url);
      if (res.status !== 200) throw new Error(`${key} answered ${res.status}`);
      await res.arrayBuffer();
    }, ITERATIONS, WARMUP);
    const etag = (await fetch(url).then(async (r) => (await r.arrayBuffer(), r.headers.get('etag'))))!;
    const revalidate = await timeCalls(async () => {
      const res = await fetch(url, { headers: { 'if-none-match': etag } });
      if (res.status !== 304) throw new Error(`${key} revalidation answered ${res.status}`);
      await res.arrayBuffer();
    }, ITERATIONS, WARMUP);
    const note = `local server, ${ITERATIONS} sequential requests after ${WARMUP} warm-up, ${kib} KiB document read from the build folder`;
    rows.push({ metric: `GET /${key} 200 p50`, value: round(percentile(full, 50)), unit: 'ms', note });
    rows.push({ metric: `GET /${key} 200 p99`, value: round(percentile(full, 99)), unit: 'ms', note });
    rows.push({ metric: `GET /${key} 304 p50`, value: round(percentile(revalidate, 50)), unit: 'ms', note: 'If-None-Match with the current ETag' });
    rows.push({ metric: `GET /${key} 304 p99`, value: round(percentile(revalidate, 99)), unit: 'ms', note: 'If-None-Match with the current ETag' });
  }
  return rows;
}

async function assetsLatencyRows(root: string): Promise<BenchRow[]> {
  const handler = require(path.join(root, 'functions/handlers/list-assets.ts')).handler as LambdaHandler;
  const rows: BenchRow[] = [];
  for (const [label, query] of [
    ['unfiltered', null],
    ['filtered (assetType=SCHEMA&lifecycle=LIVE)', { assetType: 'SCHEMA', lifecycle: 'LIVE' }],
  ] as const) {
    const event = getEvent('/developers/assets.json', '/developers/assets.json', null, query);
    const samples = await timeCalls(async () => {
      const out = await handler(event, lambdaContext);
      if (out.statusCode !== 200) throw new Error(`listAssets answered ${out.statusCode}`);
    }, ITERATIONS, WARMUP);
    const note = `${ITERATIONS} sequential in-process calls after ${WARMUP} warm-up (assets built once per execution environment)`;
    rows.push({ metric: `listAssets ${label} p50`, value: round(percentile(samples, 50)), unit: 'ms', note });
    rows.push({ metric: `listAssets ${label} p99`, value: round(percentile(samples, 99)), unit: 'ms', note });
  }
  return rows;
}

/** Loads a bundle in a fresh process, then answers one request: the cold start a first caller waits for. */
const FIRST_REQUEST_PROBE = `
const start = performance.now();
const mod = require(process.argv[1]);
const loaded = performance.now();
const event = JSON.parse(process.argv[2]);
mod.handler(event, { awsRequestId: 'bench', functionName: 'bench', getRemainingTimeInMillis: () => 10000 }).then((out) => {
  if (out.statusCode !== 200) { console.error('status ' + out.statusCode); process.exit(3); }
  process.stdout.write(JSON.stringify({ requireMs: loaded - start, firstRequestMs: performance.now() - loaded }));
});
`;

async function firstRequest(file: string, env: Record<string, string>): Promise<{ requireMs: number; firstRequestMs: number }> {
  const event = getEvent('/developers/assets.json', '/developers/assets.json', null, { assetType: 'SCHEMA' });
  const { stdout } = await run(process.execPath, [...(nodeOptionsFor(BENCH_LOG_LEVEL)?.split(' ') ?? []), '-e', FIRST_REQUEST_PROBE, file, JSON.stringify(event)], {
    env: { PATH: process.env.PATH ?? '', POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
  return JSON.parse(stdout);
}

async function coldRows(label: string, file: string, bytes: number, env: Record<string, string>, note: string): Promise<BenchRow[]> {
  const inits: number[] = [];
  const firsts: { requireMs: number; firstRequestMs: number }[] = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    inits.push((await coldInit(file, { POWERTOOLS_LOG_LEVEL: 'SILENT', ...env })).readyMs);
    firsts.push(await firstRequest(file, env));
  }
  return [
    { metric: `${label} bundle`, value: round(bytes / 1024, 1), unit: 'KiB', note },
    { metric: `${label} cold init`, value: round(median(inits)), unit: 'ms', note: `median of ${COLD_STARTS} fresh processes: process start to a callable handler` },
    { metric: `${label} first request`, value: round(median(firsts.map((f) => f.firstRequestMs))), unit: 'ms', note: `median of ${COLD_STARTS}: the first request after the module load` },
  ];
}

/**
 * The alternative: a function that reads the built document from the bucket and keeps it in
 * memory, then filters. Bundled with the stack's options and run against s3rver.
 */
const S3_READING_HANDLER = `
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { httpHandler } from './functions/http/boundary';
import { assetCatalogue, type AssetEntry } from './functions/domain/assets';
const s3 = new S3Client({ endpoint: process.env.S3_ENDPOINT, forcePathStyle: true, region: 'eu-central-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
let cached: Promise<AssetEntry[]> | undefined;
const assets = () => (cached ??= s3.send(new GetObjectCommand({ Bucket: process.env.BUCKET, Key: 'developers/assets.json' })).then(async (o) => JSON.parse(await o.Body!.transformToString()).assets));
export const handler = httpHandler(async (request) => ({ status: 200, body: assetCatalogue(await assets(), request.query as never) }));
`;

async function s3Alternative(root: string, out: string, site: Map<string, string>): Promise<BenchRow[]> {
  const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };
  const directory = path.join(out, 's3');
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const s3 = new S3Client({ endpoint, forcePathStyle: true, region: 'eu-central-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  try {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'developers/assets.json', Body: site.get('developers/assets.json'), ContentType: 'application/json' }));
    const built = await bundle({ contents: S3_READING_HANDLER, name: 'assets-from-s3.ts' }, path.join(out, 'from-s3'), root);
    return await coldRows('alternative: assets read from S3', built.file, built.bytes, { S3_ENDPOINT: endpoint, BUCKET }, 'the design not taken: AWS SDK S3 client in the bundle, one GetObject (s3rver) on the first request');
  } finally {
    s3.destroy();
    await server.close();
  }
}

export const section: BenchSection = {
  name: 'catalogues',
  run: async (ctx) => {
    logger.setLogLevel('SILENT');
    const out = await mkdtemp(path.join(os.tmpdir(), 'bench-catalogues-'));
    try {
      const site = buildSite(canonicalSources());
      const siteDir = path.join(out, 'site');
      await writeSite(siteDir, site);
      const server = await startLocalServer({ port: 0, siteDir });
      const rows: BenchRow[] = [];
      try {
        rows.push(...(await httpRows(server.url, site)));
      } finally {
        await server.close();
      }
      rows.push(...(await assetsLatencyRows(ctx.root)));
      const assets = await bundle('functions/handlers/list-assets.ts', path.join(out, 'list-assets'), ctx.root);
      rows.push(...(await coldRows('listAssets', assets.file, assets.bytes, {}, `the deployed design: canonical sources bundled, no I/O; largest: ${assets.largest.slice(0, 3).map((l) => `${l.name} ${round(l.bytes / 1024, 1)} KiB`).join(', ')}`)));
      rows.push(...(await s3Alternative(ctx.root, out, site)));
      return rows;
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  },
};
