import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { demoDocument } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { verifyEvidence, parseVerifierKey } from '../../functions/domain/ledger/node-crypto';
import { dynamoLedgerLock } from '../../functions/store/dynamodb/ledger-head';
import { dynamoLeafStore } from '../../functions/store/dynamodb/ledger-leaves';
import { leavesOf } from '../support/stores';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { runMonitor } from '#verify/node/monitor';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { localClient } from '../../lib/local/service';
import { fileSource, loadRecords, validateRecords } from '../../lib/loader/load';
import { withDerivedRecords } from '../../lib/loader/derive';
import { syntheticRecord } from '../../bench/lib/synthetic-records';
import { scanTable } from '../support/embedded-table';
import { headTextOf } from '../../functions/store/dynamodb/head-text';

/**
 * A load killed at random points (SIGKILL: the real `bin/load.ts` process, which releases
 * nothing) and run again with the same file until it completes: every record version is logged
 * exactly once, every stored version's evidence verifies, the tile log audits clean with the
 * monitor, and the table holds exactly what one uninterrupted load of the file writes.
 */
const ROOT = path.resolve(__dirname, '../..');
const ANCHOR = new Date('2026-11-01T12:00:00Z');
const SYNTHETIC = 1200;
const CHUNK = 100;
/** fast-check's seed for the kill points: a failure names the seed and the points. */
const SEED = 2311;

type Item = Record<string, AttributeValue>;
let store: EmbeddedStore;
let client: DynamoDBClient;
let dir: string;
let file: string;

beforeAll(async () => {
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
  dir = await mkdtemp(path.join(os.tmpdir(), 'load-resume-'));
  file = path.join(dir, 'records.ndjson');
  const records = [...demoDocument(ANCHOR).records, ...Array.from({ length: SYNTHETIC }, (_, n) => syntheticRecord(7, n))];
  await writeFile(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
});

afterAll(async () => {
  client.destroy();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const scan = (table: string) => scanTable(client, table);

/** The records, the leaves and the hash tiles, comparable across tables (the head's lease and times, checkpoint times and the journal differ by run). */
function comparable(items: Item[]): string[] {
  return items
    .filter((i) => !i.pk.S!.startsWith('L#') || i.pk.S!.startsWith('L#T#'))
    .map((i) => JSON.stringify(i, Object.keys(i).sort()))
    .sort();
}

/** Runs the real CLI; kills it (SIGKILL) when `killAfter` says so. Resolves with how it ended. */
function runLoad(table: string, keys: string, killAfter: { firstWriteLine: boolean; delayMs: number } | null): Promise<{ killed: boolean; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'bin/load.ts'), file, '--endpoint', store.endpoint, '--table', table, '--create-table', '--dev-key-dir', keys, '--tiles-dir', path.join(keys, 'tiles'), '--chunk-records', String(CHUNK)],
      { cwd: ROOT, env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let killed = false;
    const kill = () => {
      if (child.exitCode !== null) return;
      killed = true;
      child.kill('SIGKILL');
    };
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => {
      const first = !stderr.includes('writing:');
      stderr += d;
      if (killAfter?.firstWriteLine && first && stderr.includes('writing:')) setTimeout(kill, killAfter.delayMs);
    });
    if (killAfter && !killAfter.firstWriteLine) setTimeout(kill, killAfter.delayMs);
    child.on('exit', (code) => resolve({ killed, code, stdout, stderr }));
  });
}

test('killed at random points and run again, a load completes with every record version logged exactly once', async () => {
  const keys = path.join(dir, 'keys');
  // The kill points: one during start-up or the checking pass, then a few at random moments after a first batch was written.
  const delays = fc.sample(fc.integer({ min: 0, max: 2500 }), { seed: SEED, numRuns: 4 });
  const points = [{ firstWriteLine: false, delayMs: 1500 + delays[0] }, ...delays.slice(1).map((delayMs) => ({ firstWriteLine: true, delayMs }))];
  const runs: string[] = [];
  for (const point of points) {
    const run = await runLoad('resumed', keys, point);
    runs.push(run.killed ? `killed ${JSON.stringify(point)}` : `completed (code ${run.code})`);
    if (!run.killed) expect({ seed: SEED, runs, stderr: run.stderr, code: run.code }).toMatchObject({ code: 0 });
  }
  const last = await runLoad('resumed', keys, null);
  expect({ seed: SEED, runs, code: last.code, stderr: last.stderr }).toMatchObject({ code: 0 });
  expect(runs.filter((r) => r.startsWith('killed')).length).toBeGreaterThanOrEqual(2);
  expect(last.stdout).toMatch(/loaded \d+ records/);

  // Exactly once: one leaf per anchored record version of the file, no leaf hash twice, no (reference, version) twice.
  const expected = withDerivedRecords(validateRecords({ records: (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l)) }));
  const anchored = new Set<string>();
  for (const r of expected) for (const { head } of r.entries as { head: { reference: string; version: number; anchored?: boolean } }[]) if (head.anchored !== false) anchored.add(`${head.reference}#${head.version}`);
  const head = (await dynamoLedgerLock(client, 'resumed').read())!;
  expect(head.lock).toBeNull();
  const leaves = await leavesOf(dynamoLeafStore(client, 'resumed'), head.treeSize);
  const items = await scan('resumed');
  expect(head.treeSize).toBe(anchored.size);
  expect(new Set(leaves.map((l) => l.toString('base64'))).size).toBe(leaves.length);
  // Every leaf logs one anchored version: what the records' evidence names at each leaf index.
  const logged = new Map<number, string>();
  for (const item of items.filter((i) => i.pk.S!.startsWith('R#') && headTextOf(i) !== null)) {
    const h = JSON.parse(headTextOf(item)!);
    if (h.evidence?.version === h.version) logged.set(h.evidence.leafIndex, `${h.reference}#${h.version}`);
  }
  expect(new Set(logged.values())).toEqual(anchored);

  // The verify logic over every stored version (the demo's deliberately altered proof fails, as it must).
  const { signer } = await devLedgerSigner(keys);
  const failing = new Set<string>();
  for (const item of items.filter((i) => i.pk.S!.startsWith('R#') && headTextOf(i) !== null)) {
    const h = JSON.parse(headTextOf(item)!);
    if (h.evidence?.version !== h.version) continue;
    expect(leaves[h.evidence.leafIndex].toString('base64')).toBe(h.evidence.leafHash);
    if (!verifyEvidence(h.content, h.evidence, [signer.verifierKey]).ok) failing.add(h.reference);
  }
  expect([...failing]).toEqual([DEMO_PROOFS.tampered]);

  // The monitor audits the tile log from nothing: every entry, every tile, the root, the signature.
  const tiles = directoryTileStore(path.join(keys, 'tiles'));
  const audit = await runMonitor({ fetch: (p) => tiles.read(p), logKeys: [parseVerifierKey(signer.verifierKey)], state: null, leaves: [] });
  expect({ ok: audit.ok, problem: audit.problem, treeSize: audit.treeSize }).toEqual({ ok: true, problem: null, treeSize: head.treeSize });

  // And the table is exactly what one uninterrupted load of the file writes (same batches: same leaves, checkpoints and evidence).
  const reference = await loadRecords(await fileSource(file), { client, table: 'uninterrupted', createTable: true, signer, chunkRecords: CHUNK });
  expect(reference.ledger!.treeSize).toBe(head.treeSize);
  expect(comparable(items)).toEqual(comparable(await scan('uninterrupted')));

  // Run once more: nothing is left to do.
  const again = await runLoad('resumed', keys, null);
  expect(again.stdout).toMatch(new RegExp(`loaded ${expected.length} records \\(${expected.length} already stored`));
  expect(again.stdout).toMatch(/: 0 new leaves/);
}, 240_000);
