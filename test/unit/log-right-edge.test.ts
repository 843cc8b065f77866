import { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';

const signer = signerFromKey(formatSignerKey('right-edge.test/log', Buffer.alloc(32, 5)));

/** A published log of `size` leaves (content i logged as leaf i). */
async function publishedLog(size: number): Promise<AppendOnlyLog> {
  const log = new AppendOnlyLog(signer);
  for (let i = 0; i < size; i++) log.add({ leaf: i }, { reference: `R-${i}`, version: 1 });
  log.markPublished(await log.seal());
  return log;
}

test('what the sequencer keeps between batches is the log\'s right edge: the same tree to extend, the same checkpoints and proofs, without the leaves before its partial tiles', async () => {
  for (const size of [1, 255, 256, 700, 65_537]) {
    const full = await publishedLog(size);
    const edge = full.rightEdge();
    expect(edge.published).toEqual(full.published);
    for (const log of [full, edge]) for (let i = 0; i < 3; i++) log.add({ next: i, size }, { reference: 'R-next', version: 2 });
    expect(await edge.seal()).toBe(await full.seal());
    expect(edge.evidence(size + 2, 2)).toEqual(full.evidence(size + 2, 2));
    // Leaves before the partial level-0 tile are not held.
    if (size >= 256) expect(() => edge.evidence(0, 1)).toThrow();
  }
});

test('a log with unpublished leaves has no published right edge', async () => {
  const log = await publishedLog(3);
  log.add({ unpublished: true }, { reference: 'R', version: 1 });
  expect(() => log.rightEdge()).toThrow(/unpublished/);
});
