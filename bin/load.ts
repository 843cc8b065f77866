/**
 * npm run load -- FILE|--demo [--endpoint URL] [--table NAME] [--region R] [--create-table]
 *                  [--kms-key ARN --origin ORIGIN | --signing-key-file FILE | --dev-key-dir DIR] [--unlock-ledger]
 *                  [--tiles-bucket NAME [--tiles-prefix ledger/] | --tiles-dir DIR] [--report FILE] [--dry-run] [--chunk-records N]
 * npm run load -- FILE --export DIR [--export-file-mb N] [key and tile options as above]
 * npm run load -- --print-verifier-key --kms-key ARN --origin ORIGIN [--region R]
 * npm run load -- --new-signing-key ORIGIN
 * npm run load -- --add-cosignatures FILE --witness WITNESS_KEY... (--tiles-bucket NAME | --tiles-dir DIR)
 *
 * FILE is NDJSON (.ndjson, .jsonl: one record per line) or a JSON document { "records": [...] },
 * both read as a stream, twice: a first pass checks every record (duplicates included; nothing is
 * written when any is bad: the first 100 problems are printed, --report FILE writes all of them
 * as NDJSON, --dry-run stops there), a second writes them in batches, each logging its record
 * versions in the integrity ledger; memory stays flat whatever the file's size. Progress (records
 * per second, ETA) goes to stderr. Run again after it stopped at any point, it completes the load
 * and logs no version twice. --export DIR writes the records as a new table's content in
 * DynamoDB's import format instead (docs/deploy.md#loading-records). Without --endpoint it writes to AWS with the ambient credentials, and then the
 * log's checkpoints are signed by the stack's AWS KMS key (--kms-key, output LedgerKeyArn, with
 * the log's --origin), the key the sequencer signs with; a key file (--signing-key-file) is for
 * logs kept outside AWS. With --endpoint (a local store) the development key in .data/ (or
 * --dev-key-dir) is used. --print-verifier-key prints the verifier key of the chosen key (for
 * the ledgerVerifierKeys context). --new-signing-key prints a fresh key file on stdout and its
 * verifier key on stderr. Every load that appends writes the ledger's C2SP tlog-tiles log: into
 * the catalogue bucket (--tiles-bucket, required for AWS), or a folder (--tiles-dir; for a local
 * store the default is the dev key's folder's tiles/). See docs/ledger.md. A completed load into a
 * bucket (--tiles-bucket <CatalogueBucketName>) then publishes there the ingress examples derived
 * from the records it loaded (docs/deploy.md#published-examples).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { LEDGER_LOG } from '../functions/contract/site-paths';
import { demoDocument } from '../fixtures/demo';
import { DEFAULT_DEV_KEY_DIR, devLedgerSigner } from '../lib/ledger/dev-key';
import { bucketTileStore, directoryTileStore, type TileStore } from '../functions/ledger-writer/tile-store';
import { addCosignatures } from '../lib/ledger/cosign-log';
import { parseWitnessKey } from '../functions/domain/ledger/node-crypto';
import { kmsCheckpointSigner } from '../functions/ledger-writer/kms-signer';
import { generateSignerKey, signerFromKey, type CheckpointSigner } from '../functions/ledger-writer/signer';
import { checkRecords, documentSource, fileSource, InvalidRecordsError, loadRecords, type RecordSource } from '../lib/loader/load';
import { exportRecords } from '../lib/loader/export';
import { describeProblem, PROBLEMS_SHOWN, type RecordProblem } from '../lib/loader/problems';
import { progressLine, type ProgressLine } from '../lib/loader/progress';
import { loadedRecordsOf, publishLoadedDocuments } from '../lib/publish/loaded-examples';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const USAGE =
  'usage: npm run load -- FILE|--demo [--endpoint URL] [--table NAME] [--region R] [--create-table]\n' +
  '                       [--kms-key ARN --origin ORIGIN | --signing-key-file FILE | --dev-key-dir DIR] [--unlock-ledger]\n' +
  '                       [--tiles-bucket NAME [--tiles-prefix ledger/] | --tiles-dir DIR] [--report FILE] [--dry-run]\n' +
  '       npm run load -- FILE --export DIR [--export-file-mb N] [key and tile options as above]\n' +
  '       npm run load -- --print-verifier-key --kms-key ARN --origin ORIGIN [--region R]\n' +
  '       npm run load -- --new-signing-key ORIGIN\n' +
  '       npm run load -- --add-cosignatures FILE --witness WITNESS_KEY... (--tiles-bucket NAME | --tiles-dir DIR)';

interface SignerChoice {
  endpoint?: string;
  region?: string;
  'kms-key'?: string;
  origin?: string;
  'signing-key-file'?: string;
  'dev-key-dir'?: string;
}

async function signerFor(values: SignerChoice, local = Boolean(values.endpoint)): Promise<CheckpointSigner> {
  if (values['kms-key']) {
    // A KMS key has no name of its own: the log's origin names it in every signature line.
    if (!values.origin) throw new Error('--kms-key needs the log\'s --origin (the stack output LedgerOrigin, e.g. trust.example.com/ledger; see docs/ledger.md)');
    return kmsCheckpointSigner({ keyId: values['kms-key'], origin: values.origin, client: new KMSClient({ region: values.region }) });
  }
  if (values.origin) throw new Error('--origin names the log signed with --kms-key; a key file or the development key carries its own name');
  if (values['signing-key-file']) return signerFromKey(await readFile(values['signing-key-file'], 'utf8'));
  if (!local) {
    throw new Error('loading into AWS signs with the stack\'s ledger key: pass --kms-key <LedgerKeyArn> --origin <ledger origin> (see docs/ledger.md)');
  }
  const dev = await devLedgerSigner(values['dev-key-dir']);
  console.error(`ledger: development signing key ${dev.file}`);
  return dev.signer;
}

/** Where the tile log goes: the bucket (AWS), a folder, or beside the development key for a local store. */
function tileStoreFor(values: { endpoint?: string; region?: string; 'tiles-bucket'?: string; 'tiles-prefix'?: string; 'tiles-dir'?: string; 'dev-key-dir'?: string }): TileStore {
  if (values['tiles-bucket']) return bucketTileStore(new S3Client({ region: values.region }), values['tiles-bucket'], values['tiles-prefix'] ?? LEDGER_LOG.keyPrefix);
  if (values['tiles-dir']) return directoryTileStore(path.resolve(values['tiles-dir']));
  if (!values.endpoint) throw new Error('loading into AWS writes the ledger tile log too: pass --tiles-bucket <CatalogueBucketName> (see docs/ledger.md)');
  return directoryTileStore(path.join(values['dev-key-dir'] ? path.resolve(values['dev-key-dir']) : DEFAULT_DEV_KEY_DIR, 'tiles'));
}

const OPTIONS = {
  endpoint: { type: 'string' },
  table: { type: 'string', default: process.env.TABLE_NAME ?? 'trust-records' },
  region: { type: 'string', default: process.env.AWS_REGION ?? 'eu-central-1' },
  demo: { type: 'boolean', default: false },
  'create-table': { type: 'boolean', default: false },
  'kms-key': { type: 'string' },
  origin: { type: 'string' },
  'print-verifier-key': { type: 'boolean', default: false },
  'signing-key-file': { type: 'string' },
  'dev-key-dir': { type: 'string' },
  'unlock-ledger': { type: 'boolean', default: false },
  'new-signing-key': { type: 'string' },
  'tiles-bucket': { type: 'string' },
  'tiles-prefix': { type: 'string', default: LEDGER_LOG.keyPrefix },
  'tiles-dir': { type: 'string' },
  'add-cosignatures': { type: 'string' },
  report: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  export: { type: 'string' },
  'export-file-mb': { type: 'string' },
  'chunk-records': { type: 'string' },
  witness: { type: 'string', multiple: true, default: [] },
} satisfies NonNullable<ParseArgsConfig['options']>;

type Values = ReturnType<typeof parseArgs<{ allowPositionals: true; options: typeof OPTIONS }>>['values'];

/** --chunk-records: records a load or an export writes per chunk (the loader's default without it). */
const chunkRecordsOf = (values: Values) => (values['chunk-records'] ? Number(values['chunk-records']) : undefined);

/** The commands about keys and cosignatures, which load nothing: their exit code, or null for a load. */
async function keyCommand(values: Values): Promise<number | null> {
  if (values['new-signing-key'] !== undefined) {
    const key = generateSignerKey(values['new-signing-key']);
    process.stdout.write(`${key}\n`);
    console.error(`verifier key (public; set it as LEDGER_VERIFIER_KEYS / CDK context ledgerVerifierKeys):\n${signerFromKey(key).verifierKey}`);
    return 0;
  }
  if (values['print-verifier-key']) {
    if (!values['kms-key'] && !values['signing-key-file']) throw new Error('--print-verifier-key needs the key: --kms-key <LedgerKeyArn> --origin <ledger origin> (or --signing-key-file FILE)');
    // stdout holds only the key, so it can be captured straight into -c ledgerVerifierKeys=...
    process.stdout.write(`${(await signerFor(values)).verifierKey}\n`);
    return 0;
  }
  if (values['add-cosignatures'] !== undefined) {
    // Witnesses' cosignature lines (one per line in FILE) added to the published checkpoint (docs/ledger.md#witnesses).
    const witnesses = values.witness!.map(parseWitnessKey);
    if (witnesses.length === 0) throw new Error('pass the configured witnesses with --witness <witness key> (each line must be by one of them)');
    const lines = (await readFile(values['add-cosignatures'], 'utf8')).split('\n');
    const out = await addCosignatures(tileStoreFor(values), lines, witnesses);
    console.log(`checkpoint ${out.treeSize}: ${out.added.length} cosignature line(s) added\n${out.note}`);
    return 0;
  }
  return null;
}

/** --export: the load's items and tile log as files for DynamoDB's import from S3, signed as a load would be. */
async function exportCommand(source: RecordSource, dir: string, values: Values, problems: Pick<Parameters<typeof exportRecords>[1], 'onProblem' | 'onCheckProgress'>, progress: { checking: ProgressLine; writing: ProgressLine; started: number }): Promise<number> {
  const { checking, writing, started } = progress;
  // An export is no load into AWS: without a key it signs with the development key, endpoint or not.
  const signer = await signerFor(values, true);
  const tiles = values['tiles-bucket'] || values['tiles-dir'] ? tileStoreFor(values) : undefined;
  const out = await exportRecords(source, {
    ...problems,
    dir: path.resolve(dir),
    signer,
    tiles,
    chunkRecords: chunkRecordsOf(values),
    fileBytes: values['export-file-mb'] ? Number(values['export-file-mb']) * 1024 * 1024 : undefined,
    onProgress: (done, total) => {
      checking.done();
      writing.update(done, total);
    },
  });
  checking.done();
  writing.done();
  const seconds = (performance.now() - started) / 1000;
  const bytes = out.files.reduce((n, f) => n + f.bytes, 0);
  console.log(`exported ${out.records} records as ${out.items} items in ${out.files.length} files under ${out.dataDir} (${(bytes / 2 ** 20).toFixed(1)} MiB before gzip) in ${seconds.toFixed(1)} s`);
  console.log(`ledger ${out.ledger.origin}: ${out.ledger.appended} leaves, tree size ${out.ledger.treeSize}; tile log at ${out.tiles}`);
  console.log(`verifier key: ${out.ledger.verifierKey}`);
  console.log('next: upload the data folder to S3 and deploy with -c importFrom=s3://BUCKET/PREFIX/ (docs/deploy.md#loading-records)');
  return 0;
}

/**
 * After a completed load into the catalogue bucket (--tiles-bucket): the ingress examples derived
 * from the records it loaded, put where the deployment serves them (docs/deploy.md#published-examples).
 */
async function publishExamples(bucket: string, region: string, source: RecordSource, keptChangedByEvents: readonly string[]): Promise<void> {
  const s3 = new S3Client({ region });
  try {
    const keys = await publishLoadedDocuments(s3, bucket, await loadedRecordsOf(source, keptChangedByEvents));
    console.log(`published ${keys.join(', ')} into ${bucket}: the ingress examples, derived from the records loaded`);
  } catch (error) {
    throw new Error(`the records are loaded, but publishing the examples derived from them failed (${(error as Error).message}); run the load again: it changes nothing stored and publishes them`);
  } finally {
    s3.destroy();
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: OPTIONS });
  const keyCommandCode = await keyCommand(values);
  if (keyCommandCode !== null) return keyCommandCode;
  if (!values.demo && positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  const source: RecordSource = values.demo ? documentSource(demoDocument(new Date()), 'the demo data') : await fileSource(positionals[0]);
  const report = values.report ? openSync(values.report, 'w') : null;
  const problems = {
    onProblem: report === null ? undefined : (p: RecordProblem) => void writeSync(report, `${JSON.stringify(p)}\n`),
    onCheckProgress: ({ records, bytes, totalBytes }: { records: number; bytes: number; totalBytes: number | null }) =>
      checking.update(totalBytes ? bytes : records, totalBytes ?? 0, `${records.toLocaleString('en-US')} records`),
  };
  const checking = progressLine('checking', source.bytes ? 'bytes' : 'records');
  const writing = progressLine('writing', 'records');
  const started = performance.now();
  const client = new DynamoDBClient({
    region: values.region,
    ...(values.endpoint ? { endpoint: values.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  try {
    if (values['dry-run']) {
      const checked = await checkRecords(source, problems);
      checking.done();
      console.log(`checked ${checked.records} records (and ${checked.derived} derived from them): no problems; nothing was written (--dry-run)`);
      return 0;
    }
    if (values.export !== undefined) return await exportCommand(source, values.export, values, problems, { checking, writing, started });
    const signer = await signerFor(values);
    const tiles = tileStoreFor(values);
    console.error(`ledger: tile log at ${tiles.location}`);
    const auditing = progressLine('checking the log', 'leaves');
    const summary = await loadRecords(source, {
      ...problems,
      client,
      table: values.table!,
      createTable: values['create-table'],
      signer,
      unlockLedger: values['unlock-ledger'],
      tiles,
      chunkRecords: chunkRecordsOf(values),
      onLedgerProgress: (_stage, done, total) => {
        checking.done();
        auditing.update(done, total);
      },
      onLeaseMessage: (message) => console.error(message),
      onProgress: (done, total) => {
        checking.done();
        auditing.done();
        writing.update(done, total);
      },
    });
    writing.done();
    const seconds = (performance.now() - started) / 1000;
    const unchanged = summary.unchanged > 0 ? ` (${summary.unchanged} already stored as the file describes them, left as they were)` : '';
    console.log(`loaded ${summary.records} records${unchanged} as ${summary.items} items into ${values.table} in ${seconds.toFixed(1)} s`);
    if (summary.keptChangedByEvents.length > 0) {
      console.warn(`kept as received events made them (not reloaded from the file): ${summary.keptChangedByEvents.join(', ')}`);
    }
    if (values['tiles-bucket']) await publishExamples(values['tiles-bucket'], values.region!, source, summary.keptChangedByEvents);
    if (summary.ledger) {
      const l = summary.ledger;
      console.log(`ledger ${l.origin}: ${l.appended} new leaves, ${l.logged} record versions logged, tree size ${l.treeSize}`);
      console.log(`verifier key: ${l.verifierKey}`);
      for (const reference of l.alteredAfterLogging) {
        console.warn(`warning: ${reference} was stored with content altered after logging (alterStoredContentAfterLogging): its evidence will not verify`);
      }
    }
    return 0;
  } catch (error) {
    checking.done();
    writing.done();
    if (error instanceof InvalidRecordsError) {
      for (const p of error.problems) console.error(describeProblem(p));
      if (error.count > error.problems.length) console.error(`... and ${error.count - error.problems.length} more (the first ${PROBLEMS_SHOWN} are shown${values.report ? `; all are in ${values.report}` : '; --report FILE writes all of them'})`);
      console.error(error.message);
      return 1;
    }
    console.error(`load failed: ${(error as Error).message}`);
    return 1;
  } finally {
    client.destroy();
    if (report !== null) closeSync(report);
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    // A refusal before any load started (a missing option, a key KMS would not give): one line, not a stack.
    console.error(`load failed: ${error.message}`);
    process.exit(1);
  },
);
