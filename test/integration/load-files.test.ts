import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { localClient } from '../../lib/local/service';
import { checkRecords, fileSource, InvalidRecordsError, loadRecords, validateRecords } from '../../lib/loader/load';
import type { RecordProblem } from '../../lib/loader/problems';
import { syntheticRecord } from '../../bench/lib/synthetic-records';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';

/**
 * Record files as the loader reads them: NDJSON and the { "records": [...] } document, both
 * streamed; every problem of a file found in the first pass (the first 100 printed, all of them in
 * --report), nothing written while any exists; --dry-run.
 */
const ROOT = path.resolve(__dirname, '../..');
const ANCHOR = new Date('2026-11-01T12:00:00Z');
const run = promisify(execFile);
const signer = signerFromKey(generateSignerKey('load-files.example/log'));

let store: EmbeddedStore;
let client: DynamoDBClient;
let dir: string;

beforeAll(async () => {
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
  dir = await mkdtemp(path.join(os.tmpdir(), 'load-files-'));
});
afterAll(async () => {
  client.destroy();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const asNdjson = (records: unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const asDocument = (records: unknown[]) => JSON.stringify({ records }, null, 1);
const where = (problems: RecordProblem[]) => problems.map((p) => `${p.index}:${p.field}`).sort();

async function problemsOf(name: string, text: string): Promise<RecordProblem[]> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  const all: RecordProblem[] = [];
  try {
    await checkRecords(await fileSource(file), { onProblem: (p) => all.push(p) });
  } catch (error) {
    if (!(error instanceof InvalidRecordsError)) throw error;
    expect(error.count).toBe(all.length);
  }
  return all;
}

const cli = (args: string[]) =>
  run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/load.ts'), ...args], { cwd: ROOT, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } }).then(
    (out) => ({ code: 0, ...out }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

async function tableExists(table: string): Promise<boolean> {
  return client.send(new DescribeTableCommand({ TableName: table })).then(
    () => true,
    () => false,
  );
}

describe('NDJSON and the document, streamed', () => {
  it('load the same records into the same table contents', async () => {
    const records = [...demoDocument(ANCHOR).records, ...Array.from({ length: 300 }, (_, n) => syntheticRecord(3, n))];
    const ndjson = path.join(dir, 'same.jsonl');
    const document = path.join(dir, 'same.json');
    await writeFile(ndjson, asNdjson(records));
    await writeFile(document, asDocument(records));
    const a = await loadRecords(await fileSource(ndjson), { client, table: 'from-ndjson', createTable: true, signer, chunkRecords: 50 });
    const b = await loadRecords(await fileSource(document), { client, table: 'from-document', createTable: true, signer, chunkRecords: 50 });
    expect(a.records).toBe(records.length + 2);
    expect(b).toMatchObject({ records: a.records, items: a.items, ledger: { treeSize: a.ledger!.treeSize, checkpoint: a.ledger!.checkpoint } });
  });

  it('refuse what is neither, saying so once', async () => {
    const good = demoDocument(ANCHOR).records[0];
    for (const text of ['[]', '{"records": {}}', '"records"', '{"other": [1]}']) {
      expect(where(await problemsOf('shape.json', text))).toEqual(['-1:records']);
    }
    const truncated = await problemsOf('truncated.json', asDocument([good, good]).slice(0, 200));
    expect(truncated.map((p) => [p.index, p.message.startsWith('the file is not valid JSON')])).toEqual([[-1, true]]);
    // A document that is cut short is refused even though its first records were sound.
    expect(where(await problemsOf('empty.json', '{"records": []}'))).toEqual([]);
  });
});

describe('every problem of a file, in one pass', () => {
  it('names record, line and field; a line that is not JSON is one problem and the rest is still checked; duplicates are found however far apart', async () => {
    const records: unknown[] = Array.from({ length: 3000 }, (_, n) => syntheticRecord(5, n));
    const lines = asNdjson(records).split('\n');
    lines[10] = '{"kind": "OBJECT", "reference": ';
    lines[20] = JSON.stringify({ ...(records[20] as object), freshnessSeconds: -1 });
    lines[2900] = JSON.stringify({ ...(records[2900] as object), reference: (records[4] as { reference: string }).reference });
    lines.splice(30, 0, '', '   ');
    const problems = await problemsOf('bad.ndjson', lines.join('\n'));
    expect(where(problems)).toEqual(['10:(record)', '20:freshnessSeconds', '2900:reference'].sort());
    expect(problems.find((p) => p.index === 10)).toMatchObject({ line: 11, message: expect.stringMatching(/^line 11 is not JSON/) });
    expect(problems.find((p) => p.index === 2900)).toMatchObject({ line: 2903, message: 'appears more than once in the file (first as record 4)' });
  });

  it('the CLI prints the first 100 and the count, --report has them all, and nothing is written', async () => {
    const records = Array.from({ length: 250 }, (_, n) => ({ ...syntheticRecord(6, n), ...(n % 2 === 0 ? { freshnessSeconds: 0 } : {}) }));
    const file = path.join(dir, 'many-bad.ndjson');
    const report = path.join(dir, 'report.ndjson');
    await writeFile(file, asNdjson(records));
    const out = await cli([file, '--endpoint', store.endpoint, '--table', 'never-written', '--create-table', '--dev-key-dir', path.join(dir, 'keys'), '--report', report]);
    expect(out.code).toBe(1);
    const shown = out.stderr.split('\n').filter((l) => /^record \d+ \(line \d+\) \(SYN-6-\d+\): freshnessSeconds: /.test(l));
    expect(shown).toHaveLength(100);
    expect(out.stderr).toContain(`... and 25 more (the first 100 are shown; all are in ${report})`);
    expect(out.stderr).toContain('125 problem(s) in the records; nothing was written');
    const reported = (await readFile(report, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as RecordProblem);
    expect(reported).toHaveLength(125);
    expect(reported.map((p) => p.index)).toEqual(Array.from({ length: 125 }, (_, i) => 2 * i));
    expect(await tableExists('never-written')).toBe(false);
  });

  it('--dry-run checks a sound file and writes nothing', async () => {
    const file = path.join(dir, 'sound.json');
    await writeFile(file, JSON.stringify(demoDocument(ANCHOR)));
    const out = await cli([file, '--dry-run', '--endpoint', store.endpoint, '--table', 'dry', '--create-table']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/checked \d+ records \(and 2 derived from them\): no problems; nothing was written/);
    expect(await tableExists('dry')).toBe(false);
  });

  it('finds, streaming, exactly the problems the in-memory check finds (seeded random files)', async () => {
    const sound = [...demoDocument(ANCHOR).records, ...Array.from({ length: 20 }, (_, n) => syntheticRecord(8, n))] as Record<string, unknown>[];
    const breakages: ((r: Record<string, unknown>) => Record<string, unknown>)[] = [
      (r) => r,
      (r) => ({ ...r, kind: 'SPACESHIP' }),
      (r) => ({ ...r, reference: 'x' }),
      (r) => ({ ...r, unexpected: true }),
      (r) => ({ ...r, history: [] }),
      (r) => ({ ...r, reference: DEMO_OBJECTS.current }),
    ];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(sound.length - 1), fc.nat(breakages.length - 1)), { minLength: 1, maxLength: 25 }), async (picks) => {
        const records = picks.map(([r, b]) => breakages[b](sound[r]));
        let expected: RecordProblem[] = [];
        try {
          validateRecords({ records });
        } catch (error) {
          expected = (error as InvalidRecordsError).problems;
        }
        const streamed = await problemsOf('fuzz.ndjson', asNdjson(records));
        const documented = await problemsOf('fuzz.json', asDocument(records));
        // Status lists are checked in the second step of the same pass; the in-memory check leaves them to withDerivedRecords.
        const own = (ps: RecordProblem[]) => where(ps.filter((p) => p.field !== 'statusListIndex' && p.field !== 'statusList' && p.field !== 'issuer'));
        expect(own(streamed)).toEqual(where(expected));
        expect(own(documented)).toEqual(where(expected));
      }),
      { seed: 2323, numRuns: 25 },
    );
  });
});
