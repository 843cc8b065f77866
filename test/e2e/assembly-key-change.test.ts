import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { verifyEvidence } from '#verify/index';
import { startAssemblyRunner, type AssemblyRunner } from '../../lib/assembly/runner';
import { PROJECT_ROOT } from '../../lib/stack/trust-service-stack';
import { CREDENTIAL_CHANGED, emit } from '../support/ingress';
import { runCommand } from '../support/cli';

/**
 * A key change as an operator deploys it (docs/ledger.md, the runbook), through the assembly runner
 * (IAM enforced, its KMS stand-in): the stack synthesized with `-c ledgerKeys=2` (the first key
 * kept, a second beside it, the handover open), the table holding the first key's log (the demo,
 * loaded as the loader role with the previous key, as the deployment before the change wrote it),
 * `npm run rotate` run with the loader role's credentials and the two keys' ARNs from the stack's
 * outputs, then an event integrated by the sequencer signing with the new key. Every record
 * verifies, and the monitor holding the old log's state passes, before, across and after; the
 * deploy that closes the handover (`-c ledgerRetiredLogs=...`, its policies applied) leaves the
 * loader role no signature with the old key.
 *
 * The runner starts one synthesis and applies only policy changes to a running deployment
 * (deployPolicies), so generation 1 itself is not run here before generation 2: the first deploy
 * is test/e2e/assembly.test.ts, and what generation 2 changes in the template is
 * test/infra/stack/ledger-keys.ts.
 */

const run = promisify(execFile);
const ORIGIN = 'verify.example.org/ledger';
const NEW_ORIGIN = `${ORIGIN}/2`;
const anchor = new Date();
const work = mkdtempSync(path.join(tmpdir(), 'assembly-key-change-'));
const logLines: string[] = [];
let runner: AssemblyRunner;

const tsx = runCommand;

/** `cdk synth` as the operator runs it for generation 2, into a folder of its own; returns the folder. */
async function synth(name: string, ...context: string[]): Promise<string> {
  const dir = path.join(work, name);
  const args = ['synth', '--no-notices', '--quiet', '-c', `ledgerOrigin=${ORIGIN}`, '-c', 'ledgerKeys=2', ...context.flatMap((c) => ['-c', c]), '--output', dir];
  await run(path.join(PROJECT_ROOT, 'node_modules/.bin/cdk'), args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_DISABLE_CLI_TELEMETRY: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return dir;
}

beforeAll(async () => {
  const assemblyDir = await synth('cdk.out');
  runner = await startAssemblyRunner({ assemblyDir, demo: true, anchor, log: (line) => logLines.push(line), scheduleTimers: false });
}, 420_000);

afterAll(async () => {
  await runner?.close();
  rmSync(work, { recursive: true, force: true });
});

const OBJECT = `/v1/objects/${DEMO_OBJECTS.current}`;
const CREDENTIAL = `/v1/credentials/verify/${DEMO_CREDENTIALS.active}`;

async function read(p: string): Promise<any> {
  const res = await fetch(`${runner.invokeUrl}${p}`);
  expect([p, res.status]).toEqual([p, 200]);
  return res.json();
}

/** Both keys' verifier keys as the read functions were given them at deploy time (newest first). */
const trusted = () => String([...runner.functions.values()].find((f) => f.definition.environment.LEDGER_VERIFIER_KEYS)?.definition.environment.LEDGER_VERIFIER_KEYS).split(',');

async function verifiesWith(p: string, keys: string[]) {
  const result = await verifyEvidence(await read(p), { trustedKeys: keys });
  return { ok: result.ok, origin: result.origin };
}

const monitor = (key: string) => tsx('bin/monitor.ts', [runner.invokeUrl, '--state', path.join(work, 'monitor-state.json'), '--key', key]);

test('a key change through the assembly runner: the old log ended and handed over by the loader role, the sequencer signing the new log, every record verifying and the monitor passing across', async () => {
  const out = runner.outputs;
  expect([out.LedgerOrigin, out.PreviousLedgerOrigin]).toEqual([NEW_ORIGIN, ORIGIN]);
  expect(out.PreviousLedgerKeyArn).not.toBe(out.LedgerKeyArn);
  const [newKey, oldKey] = trusted();
  expect([newKey.split('+')[0], oldKey.split('+')[0]]).toEqual([NEW_ORIGIN, ORIGIN]);
  expect(runner.verifierKey).toBe(oldKey);

  // Before: the demo's records are the old key's log; the service confirms them, and so does the verifier with the old key.
  expect((await read(OBJECT)).current.evidenceIntegrityConfirmed).toBe(true);
  expect(await verifiesWith(OBJECT, [oldKey])).toEqual({ ok: true, origin: ORIGIN });
  const before = await monitor(oldKey);
  expect([before.code, before.stdout]).toEqual([0, expect.stringContaining(ORIGIN)]);

  // An event sent while the handover is pending waits: the sequencer holds the new key and refuses the old log.
  const delivered = await emit(runner.invokeUrl, CREDENTIAL_CHANGED, DEMO_CREDENTIALS.active, { previousStatus: 'ACTIVE', status: 'SUSPENDED' });
  expect(delivered.status).toBe(202);
  await runner.settled();
  expect(JSON.stringify(await read(CREDENTIAL))).not.toContain('SUSPENDED');
  expect(logLines.some((line) => line.includes(`the signing key is for ${NEW_ORIGIN}`))).toBe(true);

  // The handover, as the operator runs it: the loader role's credentials, the two keys' ARNs and origins from the outputs.
  const loader = runner.assumeRole(out.LoaderRoleArn, 'operator');
  const rotated = await tsx(
    'bin/rotate.ts',
    ['--table', out.TableName, '--region', 'eu-central-1', '--kms-key', out.PreviousLedgerKeyArn, '--origin', out.PreviousLedgerOrigin, '--new-kms-key', out.LedgerKeyArn, '--new-origin', out.LedgerOrigin, '--tiles-bucket', out.CatalogueBucketName],
    {
      ...process.env,
      AWS_ACCESS_KEY_ID: loader.accessKeyId,
      AWS_SECRET_ACCESS_KEY: loader.secretAccessKey,
      AWS_SESSION_TOKEN: loader.sessionToken ?? '',
      AWS_ENDPOINT_URL_DYNAMODB: runner.endpoints.dynamodb,
      AWS_ENDPOINT_URL_S3: runner.endpoints.s3,
      AWS_ENDPOINT_URL_KMS: runner.endpoints.kms,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  );
  expect([rotated.code, rotated.stdout]).toEqual([0, expect.stringContaining(`retired ${ORIGIN} at its final checkpoint`)]);
  const finalSize = Number(/ledgerRetiredLogs=\S+=(\d+)/.exec(rotated.stdout)?.[1]);
  expect(finalSize).toBeGreaterThan(1);
  expect(runner.denials).toEqual([]);

  // After: the next run of the sequencer integrates the waiting event into the new log, signing with the new key.
  await runner.fireSchedules();
  const credential = await read(CREDENTIAL);
  expect(JSON.stringify(credential)).toContain('SUSPENDED');
  const ledger = await read('/v1/ledger');
  expect(ledger.logs.map((l: { origin: string; role: string; validUpToTreeSize: number | null }) => [l.origin, l.role, l.validUpToTreeSize])).toEqual([
    [ORIGIN, 'retired', finalSize],
    [NEW_ORIGIN, 'current', null],
  ]);
  expect(ledger.latestCheckpoint).toMatchObject({ origin: NEW_ORIGIN, signatureVerified: true });
  expect(ledger.latestCheckpoint.treeSize).toBeGreaterThan(1);

  // Every record verifies: the untouched object still with the old key, the credential's new version with the new key.
  expect(await verifiesWith(OBJECT, [newKey, oldKey])).toEqual({ ok: true, origin: ORIGIN });
  expect((await read(OBJECT)).current.evidenceIntegrityConfirmed).toBe(true);
  expect(await verifiesWith(CREDENTIAL, [newKey])).toEqual({ ok: true, origin: NEW_ORIGIN });
  const cli = await tsx('bin/verify.ts', [`${runner.invokeUrl}${CREDENTIAL}`, '--key', newKey]);
  expect([cli.code, cli.stdout]).toEqual([0, expect.stringMatching(/VERIFIED/)]);

  // The monitor holding the old log's state, pinned to the old key, follows the handover and passes.
  const across = await monitor(oldKey);
  expect(across.stdout).toContain(`ok    handover: ${ORIGIN} ended at ${finalSize} naming ${NEW_ORIGIN}`);
  expect(across.code).toBe(0);

  // The deploy that closes the handover: the loader role, which signed the old log's end, may sign with the old key no more.
  const sign = (keyArn: string) =>
    new KMSClient({ endpoint: runner.endpoints.kms, region: 'eu-central-1', credentials: runner.assumeRole(out.LoaderRoleArn, 'loader') }).send(
      new SignCommand({ KeyId: keyArn, Message: Buffer.from('checkpoint'), MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' }),
    );
  await expect(sign(out.PreviousLedgerKeyArn)).resolves.toMatchObject({ Signature: expect.any(Uint8Array) });
  runner.deployPolicies(await synth('closed', `ledgerRetiredLogs=${ORIGIN}=${finalSize}`));
  await expect(sign(out.PreviousLedgerKeyArn)).rejects.toThrow(/not authorized|AccessDenied/i);
  await expect(sign(out.LedgerKeyArn)).resolves.toMatchObject({ Signature: expect.any(Uint8Array) });
}, 300_000);
