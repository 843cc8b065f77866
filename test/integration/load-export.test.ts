import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { demoDocument } from '../../fixtures/demo';
import { ensureTable, TABLE_KEYS } from '../../functions/store/write';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { localClient, startLocalService } from '../../lib/local/service';
import { fileSource, loadRecords } from '../../lib/loader/load';
import { syntheticRecord } from '../../bench/lib/synthetic-records';
import { importFiles, readImportFiles } from '../support/dynamodb-import';

/**
 * `npm run load -- FILE --export DIR`: the files, imported into the embedded store by a reader
 * that follows AWS's description of the DynamoDB JSON import format, make a table that serves the
 * same answers as a load of the same file, for every demo reference, with the same ledger and
 * the same tile log.
 */
const ROOT = path.resolve(__dirname, '../..');
const ANCHOR = new Date('2026-11-01T12:00:00Z');
const run = promisify(execFile);

let store: EmbeddedStore;
let client: DynamoDBClient;
let dir: string;
let records: Record<string, unknown>[];

beforeAll(async () => {
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
  dir = await mkdtemp(path.join(os.tmpdir(), 'load-export-'));
  records = [...(demoDocument(ANCHOR).records as Record<string, unknown>[]), ...Array.from({ length: 600 }, (_, n) => syntheticRecord(9, n))];
  await writeFile(path.join(dir, 'records.json'), JSON.stringify({ records }));
});
afterAll(async () => {
  client.destroy();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every read a demo reference has, as a path. */
function pathsOf(all: Record<string, unknown>[]): string[] {
  const paths = ['/v1/ledger', '/ledger/checkpoint'];
  for (const r of all) {
    const reference = r.reference as string;
    if (r.kind === 'OBJECT') paths.push(`/v1/objects/${reference}`, `/v1/objects/${reference}?asOf=2026-10-30T00:00:00Z&limit=5`);
    else if (r.kind === 'COMMERCIAL_PROOF') paths.push(`/v1/commercial-proofs/${reference}`);
    else if (r.kind === 'CREDENTIAL') paths.push(`/v1/credentials/verify/${reference}`, `/v1/portable-credentials/${reference}/vc.json`, `/v1/status-lists/${r.statusList}-revocation`, `/v1/status-lists/${r.statusList}-suspension`);
  }
  return [...new Set(paths)];
}

/** The answers of a service over `table`: status and body of every path (what may differ between two runs, the request's own ids, is in headers). */
async function answers(table: string, tilesDir: string, verifierKey: string, paths: string[]): Promise<Record<string, string>> {
  const service = await startLocalService({ port: 0, endpoint: store.endpoint, table, tilesDir, verifierKeys: verifierKey, sequencer: false, ingressSecretsFile: null, loadDemo: false });
  try {
    const out: Record<string, string> = {};
    for (const p of paths) {
      const res = await fetch(`${service.url}${p}`);
      // The instant an answer was computed at (and ages counted to it) is what two services never share.
      const now = Date.now();
      const body = (await res.text())
        .replaceAll(service.url, 'BASE')
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, (instant) => (Math.abs(Date.parse(instant) - now) < 10 * 60_000 ? '(now)' : instant))
        .replace(/"(age|lag)Seconds":\d+/g, '"$1Seconds":(to now)');
      out[p] = `${res.status} ${body}`;
    }
    return out;
  } finally {
    await service.close();
  }
}

test('an export imported as AWS describes the format serves what a load serves, for every demo reference', async () => {
  const keys = path.join(dir, 'keys');
  const { signer } = await devLedgerSigner(keys);
  const file = path.join(dir, 'records.json');
  const loadedTiles = path.join(dir, 'loaded-tiles');
  const loaded = await loadRecords(await fileSource(file), { client, table: 'loaded', createTable: true, signer, tiles: directoryTileStore(loadedTiles) });

  const exported = path.join(dir, 'export');
  const out = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/load.ts'), file, '--export', exported, '--dev-key-dir', keys, '--export-file-mb', '0.25'], { cwd: ROOT });
  expect(out.stdout).toMatch(new RegExp(`exported ${loaded.records} records as \\d+ items in \\d+ files`));
  const files = await readdir(path.join(exported, 'data'));
  expect(files.length).toBeGreaterThan(8);
  expect(files.every((f) => /^items-\d{2}-\d{5}\.json\.gz$/.test(f))).toBe(true);
  const manifest = JSON.parse(await readFile(path.join(exported, 'manifest.json'), 'utf8'));
  expect(manifest).toMatchObject({ format: 'svc.table-export.v1', import: { inputFormat: 'DYNAMODB_JSON', inputCompressionType: 'GZIP' }, records: loaded.records, ledger: { treeSize: loaded.ledger!.treeSize } });
  expect(manifest.files.map((f: { file: string }) => f.file).sort()).toEqual(files.sort());
  // Consecutive lines of a file belong to different records (no rolling hot partition during the
  // import), but for records of more items than the files written side by side (the long history).
  const partitionSizes = new Map<string, number>();
  for await (const item of readImportFiles(path.join(exported, 'data'))) partitionSizes.set(item.pk.S!, (partitionSizes.get(item.pk.S!) ?? 0) + 1);
  let previous: string | null = null;
  let adjacentSamePartition = 0;
  let lines = 0;
  for await (const item of readImportFiles(path.join(exported, 'data'))) {
    if (partitionSizes.get(item.pk.S!)! > 8 || !item.pk.S!.startsWith('R#')) continue;
    if (item.pk.S === previous) adjacentSamePartition++;
    previous = item.pk.S!;
    lines++;
  }
  expect(lines).toBeGreaterThan(1500);
  expect(adjacentSamePartition / lines).toBeLessThan(0.05);

  await ensureTable(client, 'imported');
  const imported = await importFiles(client, 'imported', path.join(exported, 'data'), TABLE_KEYS);
  expect(imported).toBe(manifest.items);

  const paths = pathsOf(records.slice(0, 40));
  expect(paths.length).toBeGreaterThan(50);
  const fromLoad = await answers('loaded', loadedTiles, signer.verifierKey, paths);
  const fromImport = await answers('imported', path.join(exported, 'ledger'), signer.verifierKey, paths);
  expect(Object.values(fromLoad).every((a) => a.startsWith('200 '))).toBe(true);
  const at = (a: string, b: string) => [...a].findIndex((c, i) => c !== b[i]);
  expect(paths.filter((p) => fromImport[p] !== fromLoad[p]).map((p) => [p, fromLoad[p].slice(at(fromLoad[p], fromImport[p]) - 150, at(fromLoad[p], fromImport[p]) + 80), fromImport[p].slice(at(fromLoad[p], fromImport[p]) - 150, at(fromLoad[p], fromImport[p]) + 80)])).toEqual([]);

  // The same tile log, file for file.
  const tileFiles = async (root: string) => {
    const all: Record<string, string> = {};
    for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) all[path.relative(root, path.join(entry.parentPath, entry.name))] = (await readFile(path.join(entry.parentPath, entry.name))).toString('base64');
    }
    return all;
  };
  expect(await tileFiles(path.join(exported, 'ledger'))).toEqual(await tileFiles(loadedTiles));

  // A load into the imported table goes on from it: the same file again is already there.
  const again = await loadRecords(await fileSource(file), { client, table: 'imported', signer, tiles: directoryTileStore(path.join(exported, 'ledger')) });
  expect(again).toMatchObject({ records: loaded.records, unchanged: loaded.records, ledger: { appended: 0, treeSize: loaded.ledger!.treeSize } });
}, 180_000);
