import { LedgerConsistency } from '../../functions/contract/schemas/ledger';
import { verifyConsistency, verifyNote, parseVerifierKey } from '../../functions/domain/ledger/node-crypto';
import { parseCheckpointText } from '#verify/checks/checkpoint';
import { readLedgerLeaves } from '../../functions/store/ledger';
import { LOCAL_TABLE, localClient, type LocalService } from '../../lib/local/service';
import { MerkleTree } from '#verify/node/merkle-tree';
import { getJson, startTestService } from '../support/local';
import { demoDocument } from '../../fixtures/demo';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { loadDocument } from '../../lib/loader/load';

const ANCHOR = new Date('2026-11-20T10:00:00Z');

/** The latest checkpoint the service publishes, its signature checked with the published key. */
async function signedCheckpoint(): Promise<{ treeSize: number; rootHash: Uint8Array }> {
  const ledger = (await getJson(`${service.url}/v1/ledger`)).body;
  const verified = verifyNote(ledger.latestCheckpoint.note, [parseVerifierKey(ledger.verifierKeys[0].verifierKey)]);
  expect(verified.ok).toBe(true);
  return parseCheckpointText(ledger.latestCheckpoint.note.slice(0, ledger.latestCheckpoint.note.indexOf('\n\n') + 1));
}

let service: LocalService;
let latest: { treeSize: number; rootHash: Uint8Array };
let earlierRoot: (size: number) => Buffer;

beforeAll(async () => {
  service = await startTestService(ANCHOR);
  latest = await signedCheckpoint();
  // Earlier roots computed here from the stored leaf hashes, independently of the proof endpoint.
  const client = localClient(service.storeEndpoint);
  const tree = new MerkleTree();
  for (const leaf of await readLedgerLeaves(client, LOCAL_TABLE, latest.treeSize)) tree.append(leaf);
  client.destroy();
  expect(tree.root().equals(latest.rootHash)).toBe(true);
  expect(latest.treeSize).toBeGreaterThan(16);
  earlierRoot = (size) => tree.root(size);
});
afterAll(() => service?.close());

const consistency = (query: string) => getJson(`${service.url}/v1/ledger/consistency${query}`);
const proofOf = (body: { proof: string[] }) => body.proof.map((p) => Buffer.from(p, 'base64'));

describe('GET /v1/ledger/consistency', () => {
  test('a proof from earlier sizes to the signed checkpoint verifies against the two roots, and is cacheable', async () => {
    for (const from of [...new Set([1, 2, 7, 16, Math.floor(latest.treeSize / 2), latest.treeSize - 1, latest.treeSize])].filter((n) => n >= 1 && n <= latest.treeSize)) {
      const res = await consistency(`?from=${from}&to=${latest.treeSize}`);
      expect(res.status).toBe(200);
      expect(LedgerConsistency.safeParse(res.body).success).toBe(true);
      expect(res.body).toMatchObject({ from, to: latest.treeSize });
      expect([from, verifyConsistency(from, latest.treeSize, earlierRoot(from), latest.rootHash, proofOf(res.body))]).toEqual([from, true]);
      expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    }
  });

  test('a proof between two earlier sizes verifies too; against another root it does not', async () => {
    const to = latest.treeSize - 3;
    const res = await consistency(`?from=5&to=${to}`);
    expect(verifyConsistency(5, to, earlierRoot(5), earlierRoot(to), proofOf(res.body))).toBe(true);
    expect(verifyConsistency(5, to, earlierRoot(6), earlierRoot(to), proofOf(res.body))).toBe(false);
  });

  test.each([
    ['', 'from'],
    ['?from=3', 'to'],
    ['?to=3', 'from'],
    ['?from=0&to=3', 'from'],
    ['?from=-1&to=3', 'from'],
    ['?from=1.5&to=3', 'from'],
    ['?from=abc&to=3', 'from'],
    ['?from=5&to=3', 'from'],
    ['?from=1&to=99999999999999999999', 'to'],
  ])('%s is a 400 naming %s', async (query, parameter) => {
    const res = await consistency(query);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter });
  });

  test('a size the log has not reached is a 400 saying how many entries it holds', async () => {
    const res = await consistency(`?from=1&to=${latest.treeSize + 1}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_PARAMETER', parameter: 'to' });
    expect(res.body.detail).toContain(`holds ${latest.treeSize} entries`);
  });
});

test('a later load grows the log: the first signed checkpoint is a prefix of the second, by the served proof', async () => {
  // Grown the way a deployment grows it: another load through the loader with the same key (the
  // demo a day later changes content, so versions are appended and a new checkpoint is signed).
  const client = localClient(service.storeEndpoint);
  try {
    const { signer } = await devLedgerSigner();
    await loadDocument(demoDocument(new Date(ANCHOR.getTime() + 86_400_000)), { client, table: LOCAL_TABLE, signer });
  } finally {
    client.destroy();
  }
  const second = await signedCheckpoint();
  expect(second.treeSize).toBeGreaterThan(latest.treeSize);
  const res = await consistency(`?from=${latest.treeSize}&to=${second.treeSize}`);
  expect(res.status).toBe(200);
  // Both roots come from signed checkpoints, none from the answer.
  expect(verifyConsistency(latest.treeSize, second.treeSize, latest.rootHash, second.rootHash, proofOf(res.body))).toBe(true);
  expect(verifyConsistency(latest.treeSize, second.treeSize, second.rootHash, second.rootHash, proofOf(res.body))).toBe(false);
}, 60_000);
