/**
 * npm run rotate -- [--endpoint URL] [--table NAME] [--region R]
 *                   (--kms-key ARN --origin ORIGIN | --signing-key-file FILE | --dev-key-dir DIR)
 *                   (--new-kms-key ARN --new-origin ORIGIN | --new-signing-key-file FILE | --new-origin ORIGIN with --endpoint)
 *                   (--tiles-bucket NAME [--tiles-prefix ledger/] | --tiles-dir DIR) [--unlock-ledger]
 *
 * Changes the ledger's key by ending its log and beginning another (docs/ledger.md#when-the-key-must-change):
 * the old log's last entry names the new log and its key, under the old key's final checkpoint; the new log's
 * first entry binds that final checkpoint; the table's chain of logs then leads to the new log. Stop the writers
 * first (the runbook); then deploy with the new key. Prints both logs' final and first checkpoints.
 * Against a local store (--endpoint) with only --new-origin, a new development key is made and replaces the
 * development key (the old one's verifier key kept as retired: lib/ledger/dev-key.ts), so npm start continues the new log.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { LEDGER_LOG } from '../functions/contract/site-paths';
import { kmsCheckpointSigner } from '../functions/ledger-writer/kms-signer';
import { generateSignerKey, signerFromKey, type CheckpointSigner } from '../functions/ledger-writer/signer';
import { bucketTileStore, directoryTileStore, type TileStore } from '../functions/ledger-writer/tile-store';
import { DEFAULT_DEV_KEY_DIR, devLedgerSigner, replaceDevKey } from '../lib/ledger/dev-key';
import { rotateLedger } from '../lib/ledger/rotate';

const USAGE =
  'usage: npm run rotate -- [--endpoint URL] [--table NAME] [--region R]\n' +
  '         (--kms-key ARN --origin ORIGIN | --signing-key-file FILE | --dev-key-dir DIR)\n' +
  '         (--new-kms-key ARN --new-origin ORIGIN | --new-signing-key-file FILE | --new-origin ORIGIN with --endpoint)\n' +
  '         (--tiles-bucket NAME [--tiles-prefix ledger/] | --tiles-dir DIR) [--unlock-ledger]';

async function signer(kmsKey: string | undefined, origin: string | undefined, keyFile: string | undefined, region: string): Promise<CheckpointSigner | null> {
  if (kmsKey) {
    if (!origin) throw new Error('a KMS key needs the origin of its log (--origin / --new-origin)');
    return kmsCheckpointSigner({ keyId: kmsKey, origin, client: new KMSClient({ region }) });
  }
  return keyFile ? signerFromKey(await readFile(keyFile, 'utf8')) : null;
}

function tilesOf(values: { region: string; endpoint?: string; 'tiles-bucket'?: string; 'tiles-prefix': string; 'tiles-dir'?: string; 'dev-key-dir'?: string }): TileStore {
  if (values['tiles-bucket']) return bucketTileStore(new S3Client({ region: values.region }), values['tiles-bucket'], values['tiles-prefix']);
  if (values['tiles-dir']) return directoryTileStore(path.resolve(values['tiles-dir']));
  if (!values.endpoint) throw new Error('the new log writes its tile log beside the old one: pass --tiles-bucket <CatalogueBucketName>');
  return directoryTileStore(path.join(values['dev-key-dir'] ? path.resolve(values['dev-key-dir']) : DEFAULT_DEV_KEY_DIR, 'tiles'));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      endpoint: { type: 'string' },
      table: { type: 'string', default: process.env.TABLE_NAME ?? 'trust-records' },
      region: { type: 'string', default: process.env.AWS_REGION ?? 'eu-central-1' },
      'kms-key': { type: 'string' },
      origin: { type: 'string' },
      'signing-key-file': { type: 'string' },
      'dev-key-dir': { type: 'string' },
      'new-kms-key': { type: 'string' },
      'new-origin': { type: 'string' },
      'new-signing-key-file': { type: 'string' },
      'tiles-bucket': { type: 'string' },
      'tiles-prefix': { type: 'string', default: LEDGER_LOG.keyPrefix },
      'tiles-dir': { type: 'string' },
      'unlock-ledger': { type: 'boolean', default: false },
    },
  });
  const oldSigner =
    (await signer(values['kms-key'], values.origin, values['signing-key-file'], values.region)) ?? (values.endpoint ? (await devLedgerSigner(values['dev-key-dir'])).signer : null);
  // Locally, a new development key: it replaces the development key once the log was handed over.
  const newDevKey = values.endpoint && !values['new-kms-key'] && !values['new-signing-key-file'] && values['new-origin'] ? generateSignerKey(values['new-origin']) : null;
  const newSigner = newDevKey ? signerFromKey(newDevKey) : await signer(values['new-kms-key'], values['new-origin'], values['new-signing-key-file'], values.region);
  if (!oldSigner || !newSigner) {
    console.error(USAGE);
    return 2;
  }
  const client = new DynamoDBClient({ region: values.region, ...(values.endpoint ? { endpoint: values.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}) });
  try {
    const out = await rotateLedger({ client, table: values.table, oldSigner, newSigner, tiles: tilesOf(values), unlock: values['unlock-ledger'] });
    if (newDevKey) {
      const dir = values['dev-key-dir'] ? path.resolve(values['dev-key-dir']) : DEFAULT_DEV_KEY_DIR;
      await replaceDevKey(dir, newDevKey, oldSigner.verifierKey, out.retired);
      console.log(`the development key in ${dir} is now the new log's; the old one's verifier key is kept as retired (npm start trusts both)`);
    }
    console.log(`retired ${out.retired.origin} at its final checkpoint of ${out.retired.treeSize} entries (its last entry names the successor):\n${out.retired.checkpoint}`);
    console.log(`began ${out.current.origin}; its first entry binds that checkpoint. Tile log below ${values['tiles-prefix']}${out.current.tilesDir}:\n${out.current.checkpoint}`);
    console.log(`verifier keys to trust from now on (current, then retired): ${out.current.verifierKey},${out.retired.verifierKey}`);
    // On AWS the deploy that closes the handover (docs/ledger.md, the runbook): the old key then signs for no one.
    if (!values.endpoint) console.log(`close the handover: npx cdk deploy -c ledgerKeys=<as deployed> -c ledgerRetiredLogs=${out.retired.origin}=${out.retired.treeSize}`);
    return 0;
  } catch (error) {
    console.error(`rotate: ${(error as Error).message}`);
    return 1;
  } finally {
    client.destroy();
  }
}

main().then((code) => process.exit(code));
