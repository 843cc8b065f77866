import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { operations } from '../../functions/contract/operations';
import { getEvent, sandboxExampleEvent } from '../../bench/lib/events';
import { CARD_FLOOR_SOURCE } from '../../bench/lib/baseline';
import { buildBundle } from '../support/bundle';

/**
 * What a function that reaches no AWS resource loads to start and to answer its first request, in
 * a fresh Node.js process running the bundle the stack deploys (loaded from a file, as Lambda loads
 * it), against the card floor: @middy/core and the Powertools Logger answering, nothing else
 * (bench/lib/baseline.ts). Every Node.js module such a function loads, the card's runtime loads
 * too; what the function adds is its own code, which `npm run bench -- core` measures.
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

let dir: string;

/** Writes a bundle to a file and starts it in a fresh process, answering `event`. */
function start(name: string, code: string, event: object): Started {
  const file = path.join(dir, `${name}.js`);
  writeFileSync(file, code);
  const stdout = execFileSync(process.execPath, [path.join(dir, 'probe.js'), file, JSON.stringify(event)], {
    // The public origin a deployment configures: answers that carry links are made from it.
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-central-1', POWERTOOLS_SERVICE_NAME: 'bundle-start', POWERTOOLS_LOG_LEVEL: 'ERROR', PUBLIC_BASE_URL: 'https://trust.example.org' },
    encoding: 'utf8',
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as Started;
}

let floor: Started;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-start-'));
  writeFileSync(path.join(dir, 'probe.js'), PROBE);
  floor = start('card-floor', (await buildBundle({ contents: CARD_FLOOR_SOURCE })).code, {});
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the card floor starts on the modules its runtime needs (a sanity check on the yardstick)', () => {
  // The Powertools Logger writes through a Console and samples with node:crypto.
  expect(floor.atStart).toEqual(expect.arrayContaining(['NativeModule console', 'NativeModule crypto']));
  expect(floor.answer.statusCode).toBe(200);
});

describe.each(noAwsOperations.map((op) => [op.operationId, op] as const))('%s, bundled', (operationId, op) => {
  let started: Started;
  beforeAll(async () => {
    started = start(operationId, (await buildBundle((op.integration as { entry: string }).entry)).code, firstRequest(op));
  });

  it('starts without loading a Node.js module the card floor does not load', () => {
    expect(started.atStart.filter((m) => !floor.atStart.includes(m))).toEqual([]);
  });

  it('answers its first request without loading one either', () => {
    const { answer } = started;
    expect(answer.statusCode).toBe(200);
    const etag = answer.headers?.etag as string | undefined;
    // Every read's answer is tagged: a document's as S3 tags it, the quoted hex MD5 of the bytes
    // (functions/domain/documents.ts), any other's with the SHA-256 of the bytes, or weakly over
    // what it says apart from the instant it was checked at (functions/http/conditional-get.ts).
    if (op.method === 'GET') {
      const tags = [`"${createHash('md5').update(answer.body).digest('hex')}"`, `"${createHash('sha256').update(answer.body).digest('base64url')}"`];
      if (!/^W\/"[A-Za-z0-9_-]{43}"$/.test(etag ?? '')) expect(tags).toContain(etag);
    }
    expect(started.byFirstAnswer.filter((m) => !floor.atStart.includes(m) && !floor.byFirstAnswer.includes(m))).toEqual([]);
  });
});
