import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LIFECYCLE_STATES } from '../../functions/contract/lifecycle';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { InvalidRecordsError, loadDocument, validateRecords } from '../../lib/loader/load';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { localClient, startLocalService, type LocalService } from '../../lib/local/service';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { emit } from '../support/ingress';
import { transitionCases, withChange, type TransitionCase } from '../support/transition-cases';

/**
 * Every transition of the lifecycle tables, through both writers (docs/ingress.md#lifecycle-rules,
 * docs/deploy.md#loading-records): a load whose history makes the change, and a signed event
 * making it at the receivers. Both accept exactly what the tables allow, and both refuse the rest
 * naming the same rule; a load names the record and the history entry, and writes nothing.
 */
const ROOT = path.resolve(__dirname, '../..');
const TABLE = 'transitions';
const NOW = new Date();
const CASES = transitionCases(NOW);
const signer = signerFromKey(formatSignerKey('transitions.test/ledger', Buffer.alloc(32, 17)));

let store: EmbeddedStore;
let client: DynamoDBClient;
let service: LocalService;
let dir: string;

beforeAll(async () => {
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
  dir = await mkdtemp(path.join(os.tmpdir(), 'transitions-'));
  // Every case's record as it stands before its change, loaded; the receivers (no sequencer) take each change.
  await loadDocument({ records: CASES.map((c) => c.before) }, { client, table: TABLE, createTable: true, signer, tiles: directoryTileStore(path.join(dir, 'tiles')) });
  service = await startLocalService({ port: 0, endpoint: store.endpoint, table: TABLE, sequencer: false, verifierKeys: signer.verifierKey });
}, 120_000);
afterAll(async () => {
  await service?.close();
  client?.destroy();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

test('the table covers every transition of both lifecycles, allowed and refused', () => {
  const states = Object.keys(LIFECYCLE_STATES).length;
  expect(CASES).toHaveLength(states * states + 3 * 3);
  expect(CASES.filter((c) => c.allowed).length).toBeGreaterThan(50);
  expect(CASES.filter((c) => !c.allowed).every((c) => c.rule !== null)).toBe(true);
});

describe.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c: TransitionCase) => {
  test(`a load ${c.allowed ? 'accepts it' : 'refuses it, naming the record, the history entry and the rule'}`, () => {
    let problems: unknown[] = [];
    try {
      validateRecords({ records: [withChange(c)] });
    } catch (error) {
      if (!(error instanceof InvalidRecordsError)) throw error;
      problems = error.problems;
    }
    if (c.allowed) expect(problems).toEqual([]);
    else expect(problems).toEqual([{ index: 0, reference: c.reference, field: c.field, message: expect.stringContaining(c.rule!) }]);
  });

  test(`the receivers ${c.allowed ? 'accept it (202)' : 'refuse it (409) with the same rule'}`, async () => {
    const res = await emit(service.url, c.event.type, c.reference, c.event.fields, { at: (c.next as { at: string }).at });
    if (c.allowed) expect([res.status, res.body.effect]).toEqual([202, 'ADVANCES_CURRENT_STATE']);
    else expect([res.status, res.body.code, res.body.detail]).toEqual([409, 'TRANSITION_FORBIDDEN', expect.stringContaining(c.rule!)]);
  });
});

test('npm run load -- FILE --dry-run refuses PLACED -> CANCELLED -> SHIPPED: exit 1, the record, the entry and the rule named, nothing written', async () => {
  const order = {
    kind: 'OBJECT',
    reference: 'ORD-2026-0900',
    objectType: 'ORDER',
    businessReference: 'ORDER 2026-0900',
    title: 'Order 2026-0900',
    authority: 'Service platform',
    freshnessSeconds: 3600,
    history: [
      { type: 'STATE_CHANGED', at: '2026-11-01T10:00:00Z', state: 'PLACED' },
      { type: 'STATE_CHANGED', at: '2026-11-02T10:00:00Z', state: 'CANCELLED' },
      { type: 'STATE_CHANGED', at: '2026-11-03T10:00:00Z', state: 'SHIPPED' },
    ],
  };
  const file = path.join(dir, 'cancelled-then-shipped.ndjson');
  await writeFile(file, `${JSON.stringify(order)}\n`);
  const args = [file, '--dry-run', '--endpoint', store.endpoint, '--table', 'never-written', '--create-table', '--dev-key-dir', path.join(dir, 'keys')];
  const out = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/load.ts'), ...args], { cwd: ROOT, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } }).then(
    (o) => ({ code: 0, ...o }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect(out.code).toBe(1);
  expect(out.stderr).toContain('record 0 (line 1) (ORD-2026-0900): history.2.state: at 2026-11-03T10:00:00Z the object was CANCELLED: CANCELLED (revoked) may be followed only by historical states, not SHIPPED');
  expect(out.stderr).toContain('1 problem(s) in the records; nothing was written');
  await expect(client.send(new DescribeTableCommand({ TableName: 'never-written' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
}, 60_000);
