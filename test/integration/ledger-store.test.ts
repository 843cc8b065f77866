import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GetItemCommand, ScanCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { parseCheckpointText } from '#verify/checks/checkpoint';
import { parseNote } from '#verify/checks/note';
import { parseVerifierKey, verifyEvidence, verifyNote } from '../../functions/domain/ledger/node-crypto';
import type { RecordHead } from '../../functions/domain/record';
import { storeClient } from '../../functions/store/client';
import { LEDGER_PK } from '../../functions/store/layout';
import { leafItems, levelZeroTiles } from '../support/ledger-items';
import { LedgerLockedError } from '../../functions/store/errors';
import { dynamoLedgerLock } from '../../functions/store/dynamodb/ledger-head';
import { environmentPublishedLedger, environmentRecords } from '../../functions/store/environment';
import { handler as getCommercialProof } from '../../functions/handlers/get-commercial-proof';
import { LedgerIntegrityError } from '../../functions/ledger-writer/log';
import { MerkleTree } from '#verify/node/merkle-tree';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';
import { startKmsStandIn, type KmsRequest, type KmsStandIn } from '../../lib/local/kms-stand-in';
import { headTextOf } from '../../functions/store/dynamodb/head-text';

const ANCHOR = new Date('2026-11-01T12:00:00Z');
const TABLE = 'ledger-test';
const SIGNING_KEY = generateSignerKey('ledger-test.example/log');
const signer = signerFromKey(SIGNING_KEY);
const KEYS = [signer.verifierKey];
const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

let store: EmbeddedStore;
let client: DynamoDBClient;

type Item = Record<string, AttributeValue>;

async function scan(): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const out = await client.send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey }));
    items.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
const fingerprint = (items: Item[]) => items.map((i) => JSON.stringify(i, Object.keys(i).sort())).sort();
const recordHeads = (items: Item[]) => items.filter((i) => i.pk.S!.startsWith('R#') && headTextOf(i) !== null).map((i) => JSON.parse(headTextOf(i)!) as RecordHead);

const load = (document: unknown, extra: Partial<Parameters<typeof loadDocument>[1]> = {}) =>
  loadDocument(document, { client, table: TABLE, createTable: true, signer, ...extra });

beforeAll(async () => {
  store = await startEmbeddedStore();
  configureLocalEnvironment(store.endpoint, TABLE);
  client = localClient(store.endpoint);
});

afterAll(async () => {
  client.destroy();
  storeClient().destroy();
  await store.close();
});

describe('the loader and the log in the table', () => {
  let firstCheckpoint: string;
  let firstSize: number;

  it('logs every record version and stores, with each, evidence that verifies', async () => {
    const summary = await load(demoDocument(ANCHOR));
    expect(summary.ledger).toMatchObject({ origin: 'ledger-test.example/log', alteredAfterLogging: [DEMO_PROOFS.tampered], verifierKey: signer.verifierKey });
    expect(summary.ledger!.appended).toBe(summary.ledger!.treeSize);
    const items = await scan();
    expect(leafItems(items)).toHaveLength(summary.ledger!.treeSize);
    const head = await environmentPublishedLedger().head();
    expect(head).toMatchObject({ origin: 'ledger-test.example/log', treeSize: summary.ledger!.treeSize, lock: null });
    firstCheckpoint = head!.checkpoint!;
    firstSize = head!.treeSize;

    for (const h of recordHeads(items)) {
      expect(h.evidence).not.toBeNull();
      const outcome = verifyEvidence(h.content, h.evidence!, KEYS);
      const unanchored = h.reference === DEMO_OBJECTS.modified && h.version === 2;
      expect({ reference: h.reference, version: h.version, ok: outcome.ok }).toEqual({
        reference: h.reference,
        version: h.version,
        ok: h.reference !== DEMO_PROOFS.tampered && !unanchored,
      });
    }
  });

  it('re-running the same load appends nothing and changes no item', async () => {
    const before = fingerprint(await scan());
    const summary = await load(demoDocument(ANCHOR));
    expect(summary.ledger).toMatchObject({ appended: 0, treeSize: firstSize });
    expect(fingerprint(await scan())).toEqual(before);
  });

  it('a changed record version appends new leaves; history is never rewritten', async () => {
    const before = leafItems(await scan());
    const document = demoDocument(ANCHOR);
    const changed = (document.records as Record<string, unknown>[]).find((r) => r.reference === DEMO_OBJECTS.stale)!;
    changed.title = 'Warranty W-0003 (renamed)';
    const summary = await load(document);
    expect(summary.ledger).toMatchObject({ appended: 1, treeSize: firstSize + 1 });

    const items = await scan();
    const after = leafItems(items);
    expect(fingerprint(after.slice(0, before.length))).toEqual(fingerprint(before));
    // The new tree extends the old one: its first leaves still hash to the old signed root.
    const tree = new MerkleTree();
    for (const leaf of after) tree.append(leaf.leafHash.B!);
    const old = parseCheckpointText(parseNote(firstCheckpoint).text);
    expect(tree.root(old.treeSize).equals(old.rootHash)).toBe(true);
    // Evidence stored by the first load still verifies against the checkpoint it was issued with.
    const stale = recordHeads(items).find((h) => h.reference === DEMO_OBJECTS.stale)!;
    expect(stale.content).toMatchObject({ title: 'Warranty W-0003 (renamed)' });
    expect(verifyEvidence(stale.content, stale.evidence!, KEYS).ok).toBe(true);
    const historyItem = items.find((i) => i.pk.S === `L#C#${String(firstSize).padStart(12, '0')}` && i.sk.S === '#');
    expect(historyItem?.checkpoint.S).toBe(firstCheckpoint);
  });

  it('one load at a time: a held lock stops a load before it writes anything', async () => {
    await dynamoLedgerLock(client, TABLE).acquire('another-load', { at: new Date().toISOString(), leaseMs: 3_600_000 });
    const before = fingerprint(await scan());
    const document = demoDocument(new Date(ANCHOR.getTime() + 3_600_000));
    await expect(load(document)).rejects.toThrow(LedgerLockedError);
    await expect(load(document)).rejects.toThrow(/--unlock-ledger/);
    expect(fingerprint(await scan())).toEqual(before);
    const summary = await load(document, { unlockLedger: true });
    expect(summary.ledger!.appended).toBeGreaterThan(0);
    expect((await environmentPublishedLedger().head())!.lock).toBeNull();
    // A lock that is not ours is never released by us.
    await dynamoLedgerLock(client, TABLE).acquire('mine', { at: '2026-11-01T12:00:00.000Z', leaseMs: 60_000 });
    await dynamoLedgerLock(client, TABLE).release('someone-else');
    await expect(dynamoLedgerLock(client, TABLE).acquire('third', { at: '2026-11-01T12:00:59.999Z', leaseMs: 60_000 })).rejects.toThrow(LedgerLockedError);
    // A writer that died holding the lease stops others only until the lease ends.
    const taken = await dynamoLedgerLock(client, TABLE).acquire('third', { at: '2026-11-01T12:01:00.001Z', leaseMs: 60_000 });
    expect(taken.lock).toEqual({ id: 'third', since: '2026-11-01T12:01:00.001Z', until: '2026-11-01T12:02:00.001Z' });
    await dynamoLedgerLock(client, TABLE).release('mine');
    expect((await environmentPublishedLedger().head())!.lock?.id).toBe('third');
    await dynamoLedgerLock(client, TABLE).release('third');
  });

  it('refuses to extend a log whose stored leaves were altered, or with another signing key', async () => {
    // Leaf 3 is the fourth hash of the first level-0 tile.
    const tile = levelZeroTiles(await scan())[0];
    const original = tile.hashes.B!;
    const altered = Buffer.from(original);
    altered[3 * 32] ^= 1;
    await client.send(
      new UpdateItemCommand({ TableName: TABLE, Key: { pk: tile.pk, sk: tile.sk }, UpdateExpression: 'SET hashes = :h', ExpressionAttributeValues: { ':h': { B: altered } } }),
    );
    await expect(load(demoDocument(ANCHOR))).rejects.toThrow(LedgerIntegrityError);
    await client.send(
      new UpdateItemCommand({ TableName: TABLE, Key: { pk: tile.pk, sk: tile.sk }, UpdateExpression: 'SET hashes = :h', ExpressionAttributeValues: { ':h': { B: original } } }),
    );
    const stranger = signerFromKey(generateSignerKey('ledger-test.example/log'));
    await expect(load(demoDocument(ANCHOR), { signer: stranger })).rejects.toThrow(/not signed by this signing key/);
    await expect(load(demoDocument(ANCHOR), { signer: signerFromKey(generateSignerKey('elsewhere.example/log')) })).rejects.toThrow(/the signing key is for elsewhere/);
    const head = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: LEDGER_PK }, sk: { S: '#' } } }));
    expect(head.Item?.lockId).toBeUndefined();
  });
});

describe('reading a commercial proof', () => {
  it('is one round trip to DynamoDB (the entries and the head in force, two Queries sent together), and the handler verifies with the configured key', async () => {
    process.env.LEDGER_VERIFIER_KEYS = signer.verifierKey;
    process.env.PUBLIC_BASE_URL = 'https://api.example';
    const requests: string[] = [];
    storeClient().middlewareStack.add(
      (next, context) => async (args) => {
        requests.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countProofRequests' },
    );
    const event = {
      resource: '/v1/commercial-proofs/{reference}',
      path: `/v1/commercial-proofs/${DEMO_PROOFS.stale}`,
      httpMethod: 'GET',
      headers: { host: 'forged.example' },
      pathParameters: { reference: DEMO_PROOFS.stale },
      queryStringParameters: null,
      requestContext: { requestId: 'req-1', path: `/v1/commercial-proofs/${DEMO_PROOFS.stale}` },
      body: null,
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEvent;
    const result = await getCommercialProof(event, { awsRequestId: 'req-1' } as Context);
    expect(requests).toEqual(['QueryCommand', 'QueryCommand']);
    const body = JSON.parse(result.body);
    expect(result.statusCode).toBe(200);
    expect(body.verification).toMatchObject({ proofVerified: true, verifyUrl: `https://api.example/verify?reference=${DEMO_PROOFS.stale}` });
    const window = await environmentRecords().readWindow(DEMO_PROOFS.stale, new Date().toISOString(), 1);
    expect(window.kind).toBe('COMMERCIAL_PROOF');
  });
});

describe('npm run load (the CLI)', () => {
  const tsx = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
  const cli = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [tsx, path.join(ROOT, 'bin/load.ts'), ...args], { cwd: ROOT, env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env } }).then(
      (out) => ({ code: 0, ...out }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ledger-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('prints a new signing key and its verifier key', async () => {
    const out = await cli(['--new-signing-key', 'trust.example.com/ledger']);
    expect(out.code).toBe(0);
    const key = out.stdout.trim();
    expect(out.stderr).toContain(signerFromKey(key).verifierKey);
    expect(signerFromKey(key).name).toBe('trust.example.com/ledger');
  });

  it('refuses to load into AWS without the signing key, before any call', async () => {
    const file = path.join(dir, 'records.json');
    await writeFile(file, JSON.stringify({ records: [] }));
    const out = await cli([file]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/--kms-key <LedgerKeyArn> --origin/);
  });

  it('loads a file with a key file, showing progress, and appends nothing the second time', async () => {
    const file = path.join(dir, 'records.json');
    const keyFile = path.join(dir, 'signing-key.txt');
    await writeFile(file, JSON.stringify(demoDocument(ANCHOR)));
    await writeFile(keyFile, SIGNING_KEY);
    const args = [file, '--endpoint', store.endpoint, '--table', 'cli-table', '--create-table', '--signing-key-file', keyFile];
    const first = await cli(args);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/checking: .* \(100%\)/);
    expect(first.stderr).toMatch(/writing: [\d,]+\/[\d,]+ records \(100%\)/);
    expect(first.stdout).toMatch(/ledger ledger-test\.example\/log: \d+ new leaves/);
    expect(first.stderr).toContain(`warning: ${DEMO_PROOFS.tampered} was stored with content altered after logging`);
    const second = await cli(args);
    expect(second.stdout).toMatch(/: 0 new leaves/);
  });
  describe('with the ledger key in AWS KMS (a stand-in speaking the KMS JSON protocol, through the real SDK)', () => {
    const ORIGIN = 'kms-test.example/ledger';
    let kms: KmsStandIn;
    let KMS_KEY: string;
    let requests: KmsRequest[];
    let kmsEnv: Record<string, string>;

    beforeAll(async () => {
      kms = await startKmsStandIn();
      KMS_KEY = kms.keyId;
      requests = kms.requests;
      kmsEnv = {
        // The SDK's standard per-service endpoint variable: the CLI needs no option of its own for it.
        AWS_ENDPOINT_URL_KMS: kms.endpoint,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_EC2_METADATA_DISABLED: 'true',
      };
    });
    afterAll(() => kms.close());

    it('prints the verifier key of the KMS key for the origin given, and only that on stdout', async () => {
      const out = await cli(['--print-verifier-key', '--kms-key', KMS_KEY, '--origin', ORIGIN], kmsEnv);
      expect(out.code).toBe(0);
      const key = parseVerifierKey(out.stdout.trim());
      expect(key.name).toBe(ORIGIN);
      expect(Buffer.from(key.publicKey).equals(kms.publicKey)).toBe(true);
      expect(out.stdout.trim()).toBe(kms.verifierKey(ORIGIN));
      expect(out.stdout.trim().split('\n')).toHaveLength(1);
    });

    it('loads, signing the checkpoint with the KMS key (one RAW, pure Ed25519 Sign); the tile log\'s checkpoint verifies with the printed key', async () => {
      const file = path.join(dir, 'kms-records.json');
      await writeFile(file, JSON.stringify(demoDocument(ANCHOR)));
      requests.length = 0;
      const tiles = path.join(dir, 'kms-tiles');
      const out = await cli([file, '--endpoint', store.endpoint, '--table', 'kms-table', '--create-table', '--kms-key', KMS_KEY, '--origin', ORIGIN, '--tiles-dir', tiles], kmsEnv);
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(/ledger kms-test\.example\/ledger: \d+ new leaves/);
      expect(requests.map((r) => r.target)).toEqual(['TrentService.GetPublicKey', 'TrentService.Sign']);
      expect(requests[1].body).toMatchObject({ KeyId: KMS_KEY, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' });
      const printed = (await cli(['--print-verifier-key', '--kms-key', KMS_KEY, '--origin', ORIGIN], kmsEnv)).stdout.trim();
      const checkpoint = await readFile(path.join(tiles, 'checkpoint'), 'utf8');
      expect(checkpoint.startsWith(`${ORIGIN}\n`)).toBe(true);
      expect(verifyNote(checkpoint, [parseVerifierKey(printed)])).toMatchObject({ ok: true });
      expect(out.stdout).toContain(`verifier key: ${printed}`);
    });

    it('refuses a KMS key without the log\'s origin, and names a key KMS does not know', async () => {
      const noOrigin = await cli(['--print-verifier-key', '--kms-key', KMS_KEY], kmsEnv);
      expect(noOrigin.code).toBe(1);
      expect(noOrigin.stderr).toMatch(/--kms-key needs the log's --origin/);
      const unknown = await cli(['--print-verifier-key', '--kms-key', 'alias/nothing', '--origin', ORIGIN], kmsEnv);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/AWS KMS GetPublicKey for the ledger key alias\/nothing failed: Key 'alias\/nothing' does not exist/);
    });
  });
});
