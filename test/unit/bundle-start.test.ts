import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { operations } from '../../functions/contract/operations';
import { getEvent, sandboxExampleEvent } from '../../bench/lib/events';
import { buildBundle } from '../support/bundle';

/**
 * What a function that reaches no AWS resource loads to start, and what its first answer loads,
 * in a fresh Node.js process running the bundle the stack deploys (loaded from a file, as Lambda
 * loads it). Everything such a function uses at start a bare Node.js start has already loaded
 * (fs, path, the logger's needs); node:crypto (35 internal modules, the stream layer among them)
 * is loaded by the first answer that needs a digest (functions/runtime/lazy-crypto.ts).
 */
const noAwsOperations = operations.filter((op) => op.integration.kind === 'lambda' && op.integration.access === 'none');

const PROBE = `
const fs = require('node:fs');
const before = new Set(process.moduleLoadList);
const loadedSince = () => process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule '));
const mod = require(process.argv[2]);
const atStart = loadedSince();
const context = { awsRequestId: 'bundle-start', functionName: 'bundle-start', getRemainingTimeInMillis: () => 10000 };
Promise.resolve(mod.handler(JSON.parse(process.argv[3]), context)).then((answer) => {
  fs.writeSync(1, '\\n' + JSON.stringify({ atStart, byFirstAnswer: loadedSince().filter((m) => !atStart.includes(m)), answer }));
});
`;

interface Started {
  atStart: string[];
  byFirstAnswer: string[];
  answer: APIGatewayProxyResult;
}

/** Its first request: the first published example of a sandbox route, else a GET without Accept. */
const firstRequest = (op: (typeof noAwsOperations)[number]): APIGatewayProxyEvent =>
  op.method === 'POST' ? sandboxExampleEvent(op.path) : getEvent(op.path, op.path, null);

/** The functions whose first answer (the request above: a GET without Accept, a sandbox example) needs a digest, and what for. */
const NEEDS_DIGEST: Record<string, string> = {
  listAssets: 'its ETag',
  getTrustFabricCatalogue: 'its ETag',
  getTrustInfrastructure: 'its ETag',
  getLanding: "the JSON index's ETag",
  getDeveloperLanding: "the JSON index's ETag",
  runTestClock: 'the clock id',
  runSandboxProvider: 'its digests',
  evaluateTrustPolicy: 'the policy digest',
  verifyOffline: 'the ledger checks',
};

test('every function named as needing a digest reaches no AWS resource', () => {
  expect(Object.keys(NEEDS_DIGEST).filter((id) => !noAwsOperations.some((op) => op.operationId === id))).toEqual([]);
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-start-'));
  writeFileSync(path.join(dir, 'probe.js'), PROBE);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(noAwsOperations.map((op) => [op.operationId, op] as const))('%s, bundled', (operationId, op) => {
  let started: Started;
  beforeAll(async () => {
    const { code } = await buildBundle((op.integration as { entry: string }).entry);
    const file = path.join(dir, `${operationId}.js`);
    writeFileSync(file, code);
    const stdout = execFileSync(process.execPath, [path.join(dir, 'probe.js'), file, JSON.stringify(firstRequest(op))], {
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-central-1', POWERTOOLS_SERVICE_NAME: 'bundle-start', POWERTOOLS_LOG_LEVEL: 'ERROR' },
      encoding: 'utf8',
    });
    started = JSON.parse(stdout.trim().split('\n').pop()!) as Started;
  });

  it('starts without loading a Node.js module a bare start has not loaded', () => {
    expect(started.atStart).toEqual([]);
  });

  it(`answers its first request${NEEDS_DIGEST[operationId] ? `, loading node:crypto for ${NEEDS_DIGEST[operationId]}` : ' without loading node:crypto'}`, () => {
    const { answer } = started;
    expect(answer.statusCode).toBe(200);
    const etag = answer.headers?.etag as string | undefined;
    // The documents' ETag is S3's: the quoted hex MD5 of the bytes (functions/domain/documents.ts).
    if (etag) expect(etag).toBe(`"${createHash('md5').update(answer.body).digest('hex')}"`);
    expect(started.byFirstAnswer.includes('NativeModule crypto')).toBe(operationId in NEEDS_DIGEST);
  });
});
