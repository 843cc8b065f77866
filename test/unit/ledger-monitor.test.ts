import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { checkpointText } from '#verify/checks/checkpoint';
import { addSignatureLines } from '../../lib/ledger/cosign-log';
import { checkCosignatures, parseWitnessKey, verifyConsistency, parseVerifierKey } from '../../functions/domain/ledger/node-crypto';
import { consistencyProof } from '../../functions/domain/ledger/consistency';
import { leafHash } from '#verify/node/hashing';
import { entriesStart } from '#verify/node/tlog-tiles';
import { tileResources } from '../../functions/domain/ledger/tiles';
import { MerkleTree } from '#verify/node/merkle-tree';
import { runMonitor, type MonitorReport, type MonitorState } from '#verify/node/monitor';
import { readMonitorState, runMonitorWithState, stateFiles } from '#verify/node/monitor-state';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { generateWitnessKey, witnessFromKey } from '#verify/node/witness';

const SEED = 20261123;
const signer = signerFromKey(generateSignerKey('monitor-test.example/ledger'));
const logKeys = [parseVerifierKey(signer.verifierKey)];
const entry = (i: number, salt = '') => Buffer.from(`{"entry":${i},"salt":"${salt}"}`);

/** A log as the loader grows it: one tile batch per append (the pure tileResources), stored in a map served to the monitor. */
class TestLog {
  readonly tree = new MerkleTree();
  readonly entries: Buffer[] = [];
  readonly files = new Map<string, Buffer>();
  readonly checkpoints = new Map<number, string>();

  append(items: Buffer[]): this {
    const oldSize = this.tree.size;
    for (const e of items) {
      this.entries.push(e);
      this.tree.append(leafHash(e));
    }
    const note = signer.signCheckpoint({ origin: signer.name, treeSize: this.tree.size, rootHash: this.tree.root(), extensions: [] });
    this.checkpoints.set(this.tree.size, note);
    for (const r of tileResources({ tree: this.tree, oldSize, entries: this.entries.slice(entriesStart(oldSize)), checkpoint: note })) this.files.set(r.path, r.bytes);
    return this;
  }

  get size() {
    return this.tree.size;
  }

  fetch = async (p: string) => this.files.get(p) ?? null;
}

async function monitor(log: TestLog, state: MonitorState | null = null, leaves: Buffer[] = []): Promise<MonitorReport & { leaves: Buffer[] }> {
  const kept = [...leaves];
  const report = await runMonitor({ fetch: log.fetch, logKeys, state, leaves: kept, onLeaves: (added) => void kept.push(...added) });
  return { ...report, leaves: kept };
}

describe('the monitor', () => {
  test('append-only under random batch sizes: each run verifies the new entries, and every pair of published sizes is consistent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 600 }), { minLength: 1, maxLength: 6 }), async (batches) => {
        const log = new TestLog();
        let state: MonitorState | null = null;
        let leaves: Buffer[] = [];
        const sizes: number[] = [];
        for (const count of batches) {
          log.append(Array.from({ length: count }, (_, i) => entry(log.size + i)));
          const run = await monitor(log, state, leaves);
          expect(run.problem).toBeNull();
          expect(run.newEntries).toBe(count);
          expect(run.treeSize).toBe(log.size);
          ({ state, leaves } = { state: run.state, leaves: run.leaves });
          sizes.push(log.size);
        }
        const all = log.entries.map((e) => leafHash(e));
        for (const m of sizes) for (const n of sizes.filter((s) => s >= m)) expect(verifyConsistency(m, n, log.tree.root(m), log.tree.root(n), consistencyProof(m, n, all))).toBe(true);
      }),
      { seed: SEED, numRuns: 25 },
    );
  });

  test('any changed bit in a tile, an entry bundle or the checkpoint is found', async () => {
    const log = new TestLog().append(Array.from({ length: 300 }, (_, i) => entry(i))).append(Array.from({ length: 70 }, (_, i) => entry(300 + i)));
    const served = [...log.files.keys()].filter((p) => !p.startsWith('checkpoints/') && (!p.includes('.p/') || p.endsWith('.p/114') || p.endsWith('.p/1')));
    // The resources of size 370: full tiles 0, partial level-0 tile 1 of 114, partial level-1 tile of 1, their bundles, the checkpoint.
    expect(served.sort()).toEqual(['checkpoint', 'tile/0/000', 'tile/0/001.p/114', 'tile/1/000.p/1', 'tile/entries/000', 'tile/entries/001.p/114']);
    expect((await monitor(log)).ok).toBe(true);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...served), fc.nat(), fc.integer({ min: 0, max: 7 }), async (target, at, bit) => {
        const original = log.files.get(target)!;
        const flipped = Buffer.from(original);
        flipped[at % flipped.length] ^= 1 << bit;
        log.files.set(target, flipped);
        try {
          const run = await monitor(log);
          expect(run.ok).toBe(false);
          const expected = target === 'checkpoint' ? ['checkpoint'] : target.startsWith('tile/entries/') || target.startsWith('tile/0/') ? ['tampered-entry', 'tampered-tile'] : ['tampered-tile'];
          expect(expected).toContain(run.problem!.kind);
          if (target !== 'checkpoint') expect([target, target.replace('tile/0/', 'tile/entries/')]).toContain(run.problem!.path);
        } finally {
          log.files.set(target, original);
        }
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  test('a tampered entry is named exactly: its index and its bundle', async () => {
    const log = new TestLog().append(Array.from({ length: 600 }, (_, i) => entry(i)));
    const bundle = log.files.get('tile/entries/001')!;
    const changed = Buffer.from(bundle);
    // Entry 256 + 3: skip three length-prefixed entries, then change a byte of the fourth.
    let at = 0;
    for (let i = 0; i < 3; i++) at += 2 + changed.readUInt16BE(at);
    changed[at + 5] ^= 0x20;
    log.files.set('tile/entries/001', changed);
    const run = await monitor(log);
    expect(run.problem).toMatchObject({ kind: 'tampered-entry', index: 259, path: 'tile/entries/001' });
  });

  test('a rewritten history (a fork signed by the same key) is found at the first rewritten entry, in a full bundle or in the partial one', async () => {
    const honest = new TestLog().append(Array.from({ length: 300 }, (_, i) => entry(i)));
    const seen = await monitor(honest);
    expect(seen.ok).toBe(true);
    // The fork keeps the first 100 entries, rewrites the rest, and grows to 700.
    const fork = new TestLog().append([...Array.from({ length: 100 }, (_, i) => entry(i)), ...Array.from({ length: 600 }, (_, i) => entry(100 + i, 'rewritten'))]);
    const run = await monitor(fork, seen.state, seen.leaves);
    expect(run.problem).toMatchObject({ kind: 'fork', index: 100 });
    // Rewritten inside the bundle the monitor re-reads (entries 256..299 of the partial one).
    const partial = new TestLog().append([...Array.from({ length: 290 }, (_, i) => entry(i)), ...Array.from({ length: 20 }, (_, i) => entry(290 + i, 'rewritten'))]);
    expect((await monitor(partial, seen.state, seen.leaves)).problem).toMatchObject({ kind: 'fork', index: 290, path: 'tile/0/001.p/54' });
    // Another tree of the same size.
    const same = new TestLog().append([...Array.from({ length: 299 }, (_, i) => entry(i)), entry(299, 'rewritten')]);
    expect((await monitor(same, seen.state, seen.leaves)).problem).toMatchObject({ kind: 'fork', index: 299 });
  });

  test('a log that shrank is refused with both sizes, and the honest log then verifies from the same state', async () => {
    const log = new TestLog().append(Array.from({ length: 200 }, (_, i) => entry(i))).append(Array.from({ length: 100 }, (_, i) => entry(200 + i)));
    const seen = await monitor(log);
    log.files.set('checkpoint', Buffer.from(log.checkpoints.get(200)!));
    const shrunk = await monitor(log, seen.state, seen.leaves);
    expect(shrunk.problem).toMatchObject({ kind: 'shrunk' });
    expect(shrunk.problem!.detail).toContain('had 300 entries');
    expect(shrunk.problem!.detail).toContain('now says 200');
    log.files.set('checkpoint', Buffer.from(log.checkpoints.get(300)!));
    expect((await monitor(log, seen.state, seen.leaves)).ok).toBe(true);
  });

  test('a checkpoint by another key, a missing tile and a checkpoint whose root no tile reproduces are refused', async () => {
    const log = new TestLog().append(Array.from({ length: 40 }, (_, i) => entry(i)));
    const other = signerFromKey(generateSignerKey('monitor-test.example/ledger'));
    const original = log.files.get('checkpoint')!;
    log.files.set('checkpoint', Buffer.from(other.signCheckpoint({ origin: other.name, treeSize: 40, rootHash: log.tree.root(), extensions: [] })));
    expect((await monitor(log)).problem).toMatchObject({ kind: 'checkpoint' });
    log.files.set('checkpoint', Buffer.from(signer.signCheckpoint({ origin: signer.name, treeSize: 40, rootHash: Buffer.alloc(32, 7), extensions: [] })));
    expect((await monitor(log)).problem).toMatchObject({ kind: 'root' });
    log.files.set('checkpoint', original);
    log.files.delete('tile/0/000.p/40');
    expect((await monitor(log)).problem).toMatchObject({ kind: 'missing', path: 'tile/0/000.p/40' });
  });

  test('state in files: progress is kept as it is verified, an interrupted run resumes, a failed run keeps the last verified state', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'monitor-'));
    try {
      const files = stateFiles(path.join(dir, 'state.json'));
      const log = new TestLog().append(Array.from({ length: 5000 }, (_, i) => entry(i)));
      let calls = 0;
      const interrupted = runMonitorWithState(files, {
        fetch: async (p) => {
          if (p.startsWith('tile/entries/') && ++calls > 10) throw new Error('connection lost');
          return log.fetch(p);
        },
        logKeys,
        parallel: 2,
      });
      await expect(interrupted).rejects.toThrow('connection lost');
      const partial = await readMonitorState(files);
      expect(partial.state).toBeNull();
      expect(partial.leaves.length).toBeGreaterThan(0);
      expect(partial.leaves.length % 256).toBe(0);
      const progress: number[] = [];
      const resumed = await runMonitorWithState(files, { fetch: log.fetch, logKeys, onProgress: (done) => progress.push(done) });
      expect(resumed.ok).toBe(true);
      expect(resumed.checks.join('\n')).toContain(`resumed after ${partial.leaves.length} entries`);
      expect(resumed.newEntries).toBe(5000 - partial.leaves.length);
      expect(progress.at(-1)).toBe(5000 - partial.leaves.length);
      // Grow, then serve a fork: the state stays at 5000 and the leaves it appended are dropped.
      log.append(Array.from({ length: 10 }, (_, i) => entry(5000 + i)));
      const fork = new TestLog().append([...log.entries.slice(0, 4000), ...Array.from({ length: 1100 }, (_, i) => entry(4000 + i, 'rewritten'))]);
      const refused = await runMonitorWithState(files, { fetch: fork.fetch, logKeys });
      expect(refused.problem).toMatchObject({ kind: 'fork', index: 4000 });
      const after = await readMonitorState(files);
      expect(after.state!.treeSize).toBe(5000);
      expect(after.leaves).toHaveLength(5000);
      expect((await runMonitorWithState(files, { fetch: log.fetch, logKeys })).newEntries).toBe(10);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('witness cosignatures (C2SP tlog-cosignature): k of n required, a bad cosignature by a configured witness refused', async () => {
    const log = new TestLog().append(Array.from({ length: 12 }, (_, i) => entry(i)));
    const [w1, w2, w3] = ['witness.example/w1', 'witness.example/w2', 'witness.example/w3'].map((name) => witnessFromKey(generateWitnessKey(name)));
    const note = log.files.get('checkpoint')!.toString();
    const cosigned = addSignatureLines(note, [w1.cosign(note, 1_700_000_000), w3.cosign(note, 1_700_000_001)]);
    log.files.set('checkpoint', Buffer.from(cosigned));
    const witnesses = [w1, w2].map((w) => parseWitnessKey(w.witnessKey));
    const run = (required: number) => runMonitor({ fetch: log.fetch, logKeys, state: null, leaves: [], witnesses: { witnesses, required } });
    expect((await run(1)).ok).toBe(true);
    expect((await run(2)).problem).toMatchObject({ kind: 'witnesses' });
    expect((await run(2)).problem!.detail).toContain('1 of the 2 configured witnesses cosigned (2 required)');
    // The log signature still verifies with the cosignatures beside it; the cosignature covers the checkpoint text only.
    expect(checkCosignatures(cosigned, { witnesses: [parseWitnessKey(w3.witnessKey)], required: 1 }).ok).toBe(true);
    const forged = cosigned.replace(w1.cosign(note, 1_700_000_000), w1.cosign(checkpointText({ origin: signer.name, treeSize: 11, rootHash: log.tree.root(11), extensions: [] }) + '\n— x AAAAAAAA\n', 1_700_000_000));
    expect(checkCosignatures(forged, { witnesses, required: 1 })).toMatchObject({ ok: false, detail: expect.stringContaining('does not verify') });
  });
});
