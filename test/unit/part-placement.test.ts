import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { checkpointText } from '#verify/checks/checkpoint';
import { MerkleTree } from '#verify/node/merkle-tree';
import { evidenceOfGrowth, evidenceOfPart } from '../../functions/ledger-writer/growth';
import { AppendOnlyLog, frontierOf, LedgerIntegrityError } from '../../functions/ledger-writer/log';
import { partsForEvents } from '../../functions/ledger-writer/parts';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';

/**
 * A part writer gives its new versions their evidence from its placement alone (growth.ts): its own
 * leaves and the frontier, the largest subtrees outside them that its proofs need. Held, for any
 * tree and any run of leaves in it, to the evidence the whole tree gives (MerkleTree), and to the
 * same from the batch's growth (what a writer finishing a journal rebuilds).
 */
const signer = signerFromKey(formatSignerKey('placement.test/ledger', Buffer.alloc(32, 9)));
const leafOf = (i: number) => createHash('sha256').update(`leaf ${i}`).digest();

function treeOf(size: number): MerkleTree {
  const tree = new MerkleTree();
  for (let i = 0; i < size; i++) tree.append(leafOf(i));
  return tree;
}
const checkpointOf = (tree: MerkleTree) => signer.signNote(checkpointText({ origin: signer.name, treeSize: tree.size, rootHash: tree.root(), extensions: [] }));

test('for any tree and any run of its leaves, the placement gives each leaf the evidence the whole tree gives, and the frontier stays within two hashes a level', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 600 }).chain((size) => fc.tuple(fc.constant(size), fc.integer({ min: 0, max: size - 1 })).chain(([n, start]) => fc.tuple(fc.constant(n), fc.constant(start), fc.integer({ min: start + 1, max: n })))),
      ([size, start, end]) => {
        const tree = treeOf(size);
        const checkpoint = checkpointOf(tree);
        const frontier = frontierOf((from, to) => tree.subtreeHash(from, to), size, start, end);
        expect(frontier.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(size + 1)));
        for (const [from, to] of frontier) expect(to <= start || from >= end).toBe(true);
        const leaves = Buffer.concat(Array.from({ length: end - start }, (_, i) => leafOf(start + i)));
        const placed = evidenceOfPart({ origin: signer.name, start, leaves, treeSize: size, frontier, checkpoint });
        for (let i = start; i < end; i++) {
          const evidence = placed(i, 7);
          expect(evidence.inclusionProof).toEqual(tree.inclusionProof(i).map((h) => h.toString('base64')));
          expect(evidence).toMatchObject({ leafIndex: i, treeSize: size, version: 7, leafHash: leafOf(i).toString('base64'), checkpoint });
        }
      },
    ),
    { seed: 20261207, numRuns: 150 },
  );
});

test('a placement whose leaves or frontier do not make the checkpoint\'s tree gives no evidence; nor does a leaf outside the part', () => {
  const tree = treeOf(300);
  const checkpoint = checkpointOf(tree);
  const frontier = frontierOf((from, to) => tree.subtreeHash(from, to), 300, 100, 140);
  const leaves = Buffer.concat(Array.from({ length: 40 }, (_, i) => leafOf(100 + i)));
  const wrongLeaf = Buffer.from(leaves);
  wrongLeaf[5] ^= 1;
  expect(() => evidenceOfPart({ origin: signer.name, start: 100, leaves: wrongLeaf, treeSize: 300, frontier, checkpoint })).toThrow(LedgerIntegrityError);
  expect(() => evidenceOfPart({ origin: signer.name, start: 100, leaves, treeSize: 300, frontier: frontier.slice(1), checkpoint })).toThrow(LedgerIntegrityError);
  expect(() => evidenceOfPart({ origin: 'another.example/ledger', start: 100, leaves, treeSize: 300, frontier, checkpoint })).toThrow(LedgerIntegrityError);
  const placed = evidenceOfPart({ origin: signer.name, start: 100, leaves, treeSize: 300, frontier, checkpoint });
  expect(() => placed(140, 1)).toThrow(/not one of the part's/);
  expect(() => placed(99, 1)).toThrow(/not one of the part's/);
});

test('the log gives a part its frontier; the evidence placed from it verifies, and is the evidence a writer finishing the batch\'s journal rebuilds from its growth', () => {
  const log = new AppendOnlyLog(signer);
  for (let i = 0; i < 1000; i++) log.add({ reference: `R-${i}`, version: 1, n: i }, { reference: `R-${i}`, version: 1 });
  log.markPublished(log.checkpoint());
  const batchStart = log.size;
  const edge = log.edgeTiles();
  const contents = Array.from({ length: 300 }, (_, i) => ({ reference: `N-${i}`, version: 2, n: i }));
  for (const content of contents) log.add(content, { reference: content.reference, version: 2 });
  const checkpoint = log.checkpoint();
  const leaves = Buffer.concat(log.newLeaves.map((l) => l.leafHash));
  const [start, end] = [batchStart + 120, batchStart + 210];
  const placed = evidenceOfPart({ origin: log.origin, start, leaves: leaves.subarray((start - batchStart) * 32, (end - batchStart) * 32), treeSize: log.size, frontier: log.frontier(start, end), checkpoint });
  const grown = evidenceOfGrowth({ origin: log.origin, start: batchStart, edge, leaves, checkpoint });
  for (let i = start; i < end; i++) {
    const evidence = placed(i, 2);
    expect(evidence).toEqual(log.evidence(i, 2));
    expect(evidence).toEqual(grown(i, 2));
    expect(verifyEvidence(contents[i - batchStart], evidence, [signer.verifierKey]).ok).toBe(true);
  }
});

test('a batch is cut into as many parts as it fills at least halfway, at most as many as there are part writers: under a full part it stays in the sequencer', () => {
  expect([1, 499, 500, 600, 1000, 4920, 8000, 20000].map((events) => partsForEvents(events, 500, 16))).toEqual([1, 1, 2, 2, 4, 16, 16, 16]);
  // Every part between a half and a whole full part, when there are writers enough.
  for (const events of [500, 777, 1000, 3333, 7999]) {
    const parts = partsForEvents(events, 500, 16);
    expect([events, events / parts >= 250, events / parts <= 500]).toEqual([events, true, true]);
  }
});
