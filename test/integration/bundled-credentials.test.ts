import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundle } from '../../bench/lib/bundle';
import { coldInit } from '../../bench/lib/cold-start';
import { getEvent } from '../../bench/lib/events';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { startLocalService, type LocalService } from '../../lib/local/service';
import { ROOT } from '../support/bundle';

/**
 * The deployed bundles take their AWS credentials from the environment alone (lib/stack/bundling.ts
 * puts functions/aws/credentials.ts in the place of the SDK's credential chain). Here a function
 * bundled exactly so, in a fresh process as Lambda starts it, reads the embedded store through the
 * real SDK with the credentials Lambda would give it, and without them answers 503 instead of
 * looking anywhere else.
 */
let service: LocalService;
let dir: string;
let bundled: string;
let stock: string;

const reference = DEMO_OBJECTS.current;
const event = getEvent('/v1/objects/{reference}', `/v1/objects/${reference}`, { reference });
const lambdaEnvironment = () => ({
  AWS_REGION: 'eu-central-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  AWS_ENDPOINT_URL_DYNAMODB: service.storeEndpoint,
  TABLE_NAME: process.env.TABLE_NAME ?? 'records',
  LEDGER_VERIFIER_KEYS: '',
  PUBLIC_BASE_URL: 'https://trust.example.org',
  // A home with no AWS config or credential files, so nothing but the environment can answer.
  HOME: dir,
});

beforeAll(async () => {
  service = await startLocalService({ port: 0, sequencer: false });
  dir = mkdtempSync(path.join(os.tmpdir(), 'bundled-credentials-'));
  bundled = (await bundle('functions/handlers/resolve-object.ts', path.join(dir, 'environment'), ROOT)).file;
  stock = (await bundle('functions/handlers/resolve-object.ts', path.join(dir, 'sdk-chain'), ROOT, { credentials: 'sdk-chain' })).file;
}, 120_000);

afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('with the execution role\'s credentials in the environment, the bundled function answers from the store', async () => {
  const answered = await coldInit(bundled, { ...lambdaEnvironment(), AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' }, event);
  expect(answered.answeredMs).toBeGreaterThan(0);
});

it('without them it answers 503, as with the SDK\'s whole chain when nothing in it answers', async () => {
  await expect(coldInit(bundled, lambdaEnvironment(), event)).rejects.toThrow(/status 503/);
  await expect(coldInit(stock, { ...lambdaEnvironment(), AWS_EC2_METADATA_DISABLED: 'true' }, event)).rejects.toThrow(/status 503/);
});

it('and its warning names the store operation and the missing credentials underneath', async () => {
  const failed = await coldInit(bundled, { ...lambdaEnvironment(), POWERTOOLS_LOG_LEVEL: 'WARN' }, event).then(
    () => ({ stdout: '', stderr: '' }),
    (error: { stdout: string; stderr: string }) => error,
  );
  // The logger writes warnings to stderr, as the Powertools Logger does.
  const lines = `${failed.stdout}\n${failed.stderr}`.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines.find((line) => line.message === 'dependency problem')).toMatchObject({
    level: 'WARN',
    code: 'DEPENDENCY_UNAVAILABLE',
    operation: 'Query record window',
    cause: { name: 'CredentialsProviderError' },
  });
});
