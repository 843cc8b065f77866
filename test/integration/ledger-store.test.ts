import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GetItemCommand, ScanCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { parseCheckpointText } from '../../functions/domain/ledger/checkpoint';
import { parseNote } from '../../functions/domain/ledger/note';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import type { RecordHead } from '../../functions/domain/record';
import { storeClient } from '../../functions/store/client';
import { acquireLedgerLock, LEDGER_PK, LedgerLockedError, readLedgerHead, releaseLedgerLock } from '../../functions/store/ledger';
import { readRecordWindow } from '../../functions/store/records';
import { handler as getCommercialProof } from '../../functions/handlers/get-commercial-proof';
import { LedgerIntegrityError } from '../../functions/ledger-writer/log';
import { MerkleTree } from '../../functions/ledger-writer/merkle-tree';
import { signerFromSecret } from '../../lib/ledger/secret-key';
import { generateSignerKey, signerFromKey, SigningKeyError } from '../../functions/ledger-writer/signer';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';

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
const leafItems = (items: Item[]) =>
  items.filter((i) => i.pk.S === LEDGER_PK && i.sk.S!.startsWith('E#')).sort((a, b) => a.sk.S!.localeCompare(b.sk.S!));
const recordHeads = (items: Item[]) => items.filter((i) => i.pk.S!.startsWith('R#') && i.head).map((i) => JSON.parse(i.head.S!) as RecordHead);

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
    const head = await readLedgerHead();
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
    const historyItem = items.find((i) => i.pk.S === LEDGER_PK && i.sk.S === `C#${String(firstSize).padStart(12, '0')}`);
    expect(historyItem?.checkpoint.S).toBe(firstCheckpoint);
  });

  it('one load at a time: a held lock stops a load before it writes anything', async () => {
    await acquireLedgerLock(client, TABLE, 'another-load', { at: new Date().toISOString(), leaseMs: 3_600_000 });
    const before = fingerprint(await scan());
    const document = demoDocument(new Date(ANCHOR.getTime() + 3_600_000));
    await expect(load(document)).rejects.toThrow(LedgerLockedError);
    await expect(load(document)).rejects.toThrow(/--unlock-ledger/);
    expect(fingerprint(await scan())).toEqual(before);
    const summary = await load(document, { unlockLedger: true });
    expect(summary.ledger!.appended).toBeGreaterThan(0);
    expect((await readLedgerHead())!.lock).toBeNull();
    // A lock that is not ours is never released by us.
    await acquireLedgerLock(client, TABLE, 'mine', { at: '2026-11-01T12:00:00.000Z', leaseMs: 60_000 });
    await releaseLedgerLock(client, TABLE, 'someone-else');
    await expect(acquireLedgerLock(client, TABLE, 'third', { at: '2026-11-01T12:00:59.999Z', leaseMs: 60_000 })).rejects.toThrow(LedgerLockedError);
    // A writer that died holding the lease stops others only until the lease ends.
    const taken = await acquireLedgerLock(client, TABLE, 'third', { at: '2026-11-01T12:01:00.001Z', leaseMs: 60_000 });
    expect(taken.lock).toEqual({ id: 'third', since: '2026-11-01T12:01:00.001Z', until: '2026-11-01T12:02:00.001Z' });
    await releaseLedgerLock(client, TABLE, 'mine');
    expect((await readLedgerHead())!.lock?.id).toBe('third');
    await releaseLedgerLock(client, TABLE, 'third');
  });

  it('refuses to extend a log whose stored leaves were altered, or with another signing key', async () => {
    const leaf = leafItems(await scan())[3];
    const original = leaf.leafHash.B!;
    const altered = Buffer.from(original);
    altered[0] ^= 1;
    await client.send(
      new UpdateItemCommand({ TableName: TABLE, Key: { pk: leaf.pk, sk: leaf.sk }, UpdateExpression: 'SET leafHash = :h', ExpressionAttributeValues: { ':h': { B: altered } } }),
    );
    await expect(load(demoDocument(ANCHOR))).rejects.toThrow(LedgerIntegrityError);
    await client.send(
      new UpdateItemCommand({ TableName: TABLE, Key: { pk: leaf.pk, sk: leaf.sk }, UpdateExpression: 'SET leafHash = :h', ExpressionAttributeValues: { ':h': { B: original } } }),
    );
    const stranger = signerFromKey(generateSignerKey('ledger-test.example/log'));
    await expect(load(demoDocument(ANCHOR), { signer: stranger })).rejects.toThrow(/not signed by this signing key/);
    await expect(load(demoDocument(ANCHOR), { signer: signerFromKey(generateSignerKey('elsewhere.example/log')) })).rejects.toThrow(/the signing key is for elsewhere/);
    const head = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: LEDGER_PK }, sk: { S: '#' } } }));
    expect(head.Item?.lockId).toBeUndefined();
  });
});

describe('reading a commercial proof', () => {
  it('is one DynamoDB request, and the handler verifies with the configured key', async () => {
    process.env.LEDGER_VERIFIER_KEYS = signer.verifierKey;
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
      headers: { host: 'api.example' },
      pathParameters: { reference: DEMO_PROOFS.stale },
      queryStringParameters: null,
      requestContext: { requestId: 'req-1', path: `/v1/commercial-proofs/${DEMO_PROOFS.stale}` },
      body: null,
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEvent;
    const result = await getCommercialProof(event, { awsRequestId: 'req-1' } as Context);
    expect(requests).toEqual(['QueryCommand']);
    const body = JSON.parse(result.body);
    expect(result.statusCode).toBe(200);
    expect(body.verification).toMatchObject({ proofVerified: true, verifyUrl: `https://api.example/verify?reference=${DEMO_PROOFS.stale}` });
    const window = await readRecordWindow(DEMO_PROOFS.stale, new Date().toISOString(), 1);
    expect(window.kind).toBe('COMMERCIAL_PROOF');
  });
});

describe('the signing key in Secrets Manager', () => {
  let server: http.Server;
  let endpoint: string;
  const secrets: Record<string, string> = {};
  const targets: string[] = [];

  beforeAll(async () => {
    // A stand-in speaking the Secrets Manager JSON protocol for GetSecretValue.
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        targets.push(String(req.headers['x-amz-target']));
        const { SecretId } = JSON.parse(body) as { SecretId: string };
        const value = secrets[SecretId];
        res.setHeader('content-type', 'application/x-amz-json-1.1');
        if (value === undefined) {
          res.statusCode = 400;
          res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: 'Secrets Manager cannot find the specified secret.' }));
          return;
        }
        res.end(JSON.stringify({ ARN: SecretId, Name: 'ledger', SecretString: value, VersionId: 'v1' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads the signing key (plain or as JSON) through the real SDK', async () => {
    secrets['arn:ledger-plain'] = SIGNING_KEY;
    secrets['arn:ledger-json'] = JSON.stringify({ signingKey: SIGNING_KEY });
    for (const secretId of ['arn:ledger-plain', 'arn:ledger-json']) {
      const fromSecret = await signerFromSecret({ secretId, region: 'eu-central-1', endpoint });
      expect(fromSecret.verifierKey).toBe(signer.verifierKey);
    }
    expect(targets.every((t) => t === 'secretsmanager.GetSecretValue')).toBe(true);
  });

  it('explains how to fix a secret that holds no signing key', async () => {
    secrets['arn:generated'] = 'x8#generated-password-by-the-stack';
    await expect(signerFromSecret({ secretId: 'arn:generated', region: 'eu-central-1', endpoint })).rejects.toThrow(SigningKeyError);
    await expect(signerFromSecret({ secretId: 'arn:generated', region: 'eu-central-1', endpoint })).rejects.toThrow(/--new-signing-key/);
    await expect(signerFromSecret({ secretId: 'arn:missing', region: 'eu-central-1', endpoint })).rejects.toThrow(/cannot find/);
  });
});

describe('npm run load (the CLI)', () => {
  const tsx = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
  const cli = (args: string[]) =>
    run(process.execPath, [tsx, path.join(ROOT, 'bin/load.ts'), ...args], { cwd: ROOT, env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' } }).then(
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
    expect(out.stderr).toMatch(/--signing-key-secret/);
  });

  it('loads a file with a key file, showing progress, and appends nothing the second time', async () => {
    const file = path.join(dir, 'records.json');
    const keyFile = path.join(dir, 'signing-key.txt');
    await writeFile(file, JSON.stringify(demoDocument(ANCHOR)));
    await writeFile(keyFile, SIGNING_KEY);
    const args = [file, '--endpoint', store.endpoint, '--table', 'cli-table', '--create-table', '--signing-key-file', keyFile];
    const first = await cli(args);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/logging records: \d+\/\d+ \(100%\)/);
    expect(first.stderr).toMatch(/writing items: \d+\/\d+ \(100%\)/);
    expect(first.stdout).toMatch(/ledger ledger-test\.example\/log: \d+ new leaves/);
    expect(first.stderr).toContain(`warning: ${DEMO_PROOFS.tampered} was stored with content altered after logging`);
    const second = await cli(args);
    expect(second.stdout).toMatch(/: 0 new leaves/);
  });
});
