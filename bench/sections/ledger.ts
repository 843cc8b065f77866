/**
 * The integrity ledger: what verifying the evidence of one response costs (the check every
 * object and proof read runs), how fast the loader logs records, how the cost of one
 * inclusion proof grows with the size of the log (it must follow log n, not n), what the tile log
 * writes per batch and per entry, how fast a monitor verifies it, and consistency proofs at 2^10
 * and 2^20.
 */
import { DEMO_PROOFS, demoProofRecords } from '../../fixtures/demo-proofs';
import { inspectIntegrity, assessIntegrity } from '../../functions/domain/evidence';
import type { LogEvidence } from '#verify/checks/evidence-format';
import { leafHash } from '#verify/node/hashing';
import { canonicalBytes } from '#verify/checks/canonical';
import { consistencyProof } from '../../functions/domain/ledger/consistency';
import { verifyConsistency, parseVerifierKey, rootFromInclusionProof, verifyNote } from '../../functions/domain/ledger/node-crypto';
import { entriesStart, hashTileBytes, TILE_HEIGHT, TILE_WIDTH } from '#verify/node/tlog-tiles';
import { tileResources } from '../../functions/domain/ledger/tiles';
import { runMonitor } from '#verify/node/monitor';
import { commercialProofEvidence, publicProof, type ProofHead, type ProofWindowEntry } from '../../functions/domain/proofs';
import type { RecordToStore } from '../../functions/store/write';
import { storeClient } from '../../functions/store/client';
import { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { consistencyProofFromTiles, tilesForConsistency } from '../../functions/domain/ledger/tile-proofs';
import { MerkleTree } from '#verify/node/merkle-tree';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { startEmbeddedStore } from '../../lib/local/embedded-store';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { attachLedgerEvidence } from '../../lib/loader/evidence';
import { loadDocument, validateRecords } from '../../lib/loader/load';
import { percentile, ratio, round } from '../lib/stats';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

const LOADER_RECORDS = 100_000;
const STORE_LOAD_RECORDS = 5_000;
const VERIFY_WARMUP = 300;
const VERIFY_ITERATIONS = 3_000;
const PROOF_SIZES = [2 ** 10, 2 ** 13, 2 ** 16, 2 ** 20];
const PROOFS_PER_SIZE = 2_000;
const PROOF_BATCHES = 10;

const signer = signerFromKey(generateSignerKey('bench.example/ledger'));

/** Microseconds of each call of a synchronous function, after a warm-up. */
function timeSync(fn: () => unknown, iterations: number, warmup: number): number[] {
  const samples: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const start = process.hrtime.bigint();
    fn();
    if (i >= warmup) samples.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  return samples;
}

/** Records shaped like loaded objects: one version each, public content of realistic size. */
function syntheticRecords(count: number, anchor: Date): RecordToStore[] {
  const at = anchor.toISOString();
  return Array.from({ length: count }, (_, i) => {
    const reference = `BENCH-${String(i).padStart(7, '0')}`;
    const content = {
      reference,
      objectType: 'ORDER',
      businessReference: `ORDER ${i}`,
      title: `Order ${i}`,
      authority: 'Service platform',
      state: 'DELIVERED',
      stateSince: at,
      version: 1,
      freshnessSeconds: 3600,
    };
    const head = { kind: 'OBJECT', reference, version: 1, content, evidence: null };
    return { reference, kind: 'OBJECT', entries: [{ at, entry: { at, type: 'STATE_CHANGED', state: 'DELIVERED', source: 'x' }, view: { state: 'DELIVERED', lastObservedAt: null }, head }] };
  });
}

function verificationRows(ctx: BenchContext): BenchRow[] {
  const records = validateRecords({ records: demoProofRecords(ctx.anchor) });
  // A log of realistic depth: the demo proofs followed by many other records.
  const log = new AppendOnlyLog(signer);
  attachLedgerEvidence([...records, ...syntheticRecords(50_000, ctx.anchor)], log);
  const proofRecord = records.find((r) => r.reference === DEMO_PROOFS.current)!;
  const newest = proofRecord.entries[proofRecord.entries.length - 1] as unknown as ProofWindowEntry;
  // Evidence in the record is against the final checkpoint (as the loader stores it).
  const head = newest.head as ProofHead;
  process.env.LEDGER_VERIFIER_KEYS = signer.verifierKey;
  if (!assessIntegrity(head).confirmed) throw new Error('the benchmark evidence does not verify');

  const integrity = timeSync(() => assessIntegrity(head), VERIFY_ITERATIONS, VERIFY_WARMUP);
  const now = new Date(ctx.anchor.getTime()).toISOString();
  const response = timeSync(
    () => commercialProofEvidence({ newest, integrity: inspectIntegrity({ ...head, content: publicProof(head.content) }), now, baseUrl: 'https://bench.example' }),
    VERIFY_ITERATIONS,
    VERIFY_WARMUP,
  );
  const evidence = head.evidence as LogEvidence;
  const proofLength = evidence.inclusionProof.length;
  const keys = [parseVerifierKey(signer.verifierKey)];
  const signature = timeSync(() => verifyNote(evidence.checkpoint, keys), VERIFY_ITERATIONS, VERIFY_WARMUP);
  const note = `tree of ${log.size} leaves, ${proofLength}-hash proof: JCS, leaf hash, inclusion proof, checkpoint signature (remembered after the first check)`;
  return [
    { metric: 'verify evidence of one response, p50', value: round(percentile(integrity, 50), 1), unit: 'µs', note },
    { metric: 'verify evidence of one response, p99', value: round(percentile(integrity, 99), 1), unit: 'µs', note },
    {
      metric: 'Ed25519 checkpoint signature check, p50',
      value: round(percentile(signature, 50), 1),
      unit: 'µs',
      note: 'paid once per checkpoint and function instance: records loaded together share one checkpoint, and the opened checkpoint is remembered',
    },
    { metric: 'build a verified proof response, p50', value: round(percentile(response, 50), 1), unit: 'µs', note: 'verification plus the CommercialProofEvidence body (no store read)' },
    { metric: 'build a verified proof response, p99', value: round(percentile(response, 99), 1), unit: 'µs' },
  ];
}

function loaderRows(ctx: BenchContext): BenchRow[] {
  const records = syntheticRecords(LOADER_RECORDS, ctx.anchor);
  const log = new AppendOnlyLog(signer);
  const start = process.hrtime.bigint();
  const attachment = attachLedgerEvidence(records, log);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (attachment.appended !== LOADER_RECORDS) throw new Error(`appended ${attachment.appended}`);
  const again = process.hrtime.bigint();
  const rerun = attachLedgerEvidence(syntheticRecords(LOADER_RECORDS, ctx.anchor), log);
  const rerunSeconds = Number(process.hrtime.bigint() - again) / 1e9;
  return [
    {
      metric: `loader: log ${LOADER_RECORDS.toLocaleString('en')} new records`,
      value: Math.round(LOADER_RECORDS / seconds),
      unit: 'records/s',
      note: `in-process log (no DynamoDB): JCS, leaf hash, append, one signed checkpoint, an inclusion proof per record; ${round(seconds, 2)} s`,
    },
    {
      metric: `loader: re-run the same ${LOADER_RECORDS.toLocaleString('en')} records`,
      value: Math.round(LOADER_RECORDS / rerunSeconds),
      unit: 'records/s',
      note: `appends ${rerun.appended} leaves (idempotent); proofs against the unchanged checkpoint`,
    },
  ];
}

async function storeLoadRows(ctx: BenchContext): Promise<BenchRow[]> {
  const store = await startEmbeddedStore();
  try {
    configureLocalEnvironment(store.endpoint, 'bench-ledger');
    const client = localClient(store.endpoint);
    const document = {
      records: Array.from({ length: STORE_LOAD_RECORDS }, (_, i) => ({
        kind: 'OBJECT',
        reference: `BENCH-${String(i).padStart(7, '0')}`,
        objectType: 'ORDER',
        businessReference: `ORDER ${i}`,
        title: `Order ${i}`,
        authority: 'Service platform',
        freshnessSeconds: 3600,
        history: [{ type: 'STATE_CHANGED', at: ctx.anchor.toISOString(), state: 'DELIVERED' }],
      })),
    };
    const start = process.hrtime.bigint();
    const summary = await loadDocument(document, { client, table: 'bench-ledger', createTable: true, signer });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    client.destroy();
    storeClient().destroy();
    return [
      {
        metric: `loader: ${STORE_LOAD_RECORDS.toLocaleString('en')} records into the embedded store`,
        value: Math.round(STORE_LOAD_RECORDS / seconds),
        unit: 'records/s',
        note: `whole load through the DynamoDB API (dynalite, in memory): ${summary.items} record items + ${summary.ledger?.appended} leaf items; the store, not the log, sets the pace`,
      },
    ];
  } finally {
    await store.close();
  }
}

function inclusionRows(): BenchRow[] {
  const rows: BenchRow[] = [];
  const tree = new MerkleTree();
  const perProof: number[] = [];
  let next = 0;
  for (const size of PROOF_SIZES) {
    while (tree.size < size) tree.append(leafHash(Buffer.from(String(next++))));
    const root = tree.root();
    let state = 0x9e3779b9;
    const indexes = Array.from({ length: PROOFS_PER_SIZE }, () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % size;
    });
    let hashes = 0;
    for (const i of indexes.slice(0, 200)) tree.inclusionProof(i);
    // Median of batch means: one garbage collection in a batch does not decide the figure.
    const batchMeans: number[] = [];
    for (let b = 0; b < PROOF_BATCHES; b++) {
      const batch = indexes.slice((b * PROOFS_PER_SIZE) / PROOF_BATCHES, ((b + 1) * PROOFS_PER_SIZE) / PROOF_BATCHES);
      const start = process.hrtime.bigint();
      for (const i of batch) hashes += tree.inclusionProof(i).length;
      batchMeans.push(Number(process.hrtime.bigint() - start) / 1e3 / batch.length);
    }
    const micros = percentile(batchMeans, 50);
    perProof.push(micros);
    const proof = tree.inclusionProof(indexes[0]);
    if (!rootFromInclusionProof(indexes[0], size, tree.leaf(indexes[0]), proof).equals(root)) throw new Error('proof does not verify');
    const verify = timeSync(() => rootFromInclusionProof(indexes[0], size, tree.leaf(indexes[0]), proof), 1000, 100);
    rows.push({
      metric: `inclusion proof at n = ${size.toLocaleString('en')} (2^${Math.log2(size)})`,
      value: round(micros, 2),
      unit: 'µs',
      note: `${round(hashes / PROOFS_PER_SIZE, 1)} hashes per proof; verifying one: ${round(percentile(verify, 50), 1)} µs`,
    });
  }
  const first = PROOF_SIZES[0];
  const last = PROOF_SIZES[PROOF_SIZES.length - 1];
  rows.push({
    metric: `inclusion proof cost, n = 2^${Math.log2(last)} vs 2^${Math.log2(first)}`,
    value: ratio(perProof[perProof.length - 1], perProof[0]),
    unit: 'x',
    note: `log n grew ${ratio(Math.log2(last), Math.log2(first))}x while n grew ${last / first}x`,
  });
  return rows;
}

const TILE_LOG_ENTRIES = 100_000;
const TILE_BATCH = 1_000;

/**
 * The tile log: a 100,000-entry log grown in batches of 1,000 (one load each) through the pure
 * tileResources, stored in memory; then a monitor verifying all of it from scratch.
 */
async function tileRows(ctx: BenchContext): Promise<BenchRow[]> {
  const entries = syntheticRecords(TILE_LOG_ENTRIES, ctx.anchor).map((r) => canonicalBytes((r.entries[0] as unknown as { head: { content: unknown } }).head.content));
  const tree = new MerkleTree();
  const files = new Map<string, Buffer>();
  let resources = 0;
  let written = 0;
  let seconds = 0;
  for (let size = 0; size < TILE_LOG_ENTRIES; size += TILE_BATCH) {
    for (let i = size; i < size + TILE_BATCH; i++) tree.append(leafHash(entries[i]));
    const note = signer.signCheckpoint({ origin: signer.name, treeSize: tree.size, rootHash: tree.root(), extensions: [] });
    const start = process.hrtime.bigint();
    const batch = tileResources({ tree, oldSize: size, entries: entries.slice(entriesStart(size), size + TILE_BATCH), checkpoint: note });
    seconds += Number(process.hrtime.bigint() - start) / 1e9;
    resources += batch.length;
    for (const r of batch) {
      written += r.bytes.length;
      files.set(r.path, r.bytes);
    }
  }
  const batches = TILE_LOG_ENTRIES / TILE_BATCH;
  const entryBytes = entries.reduce((n, e) => n + e.length, 0);
  const current = [...files].filter(([p]) => !p.includes('.p/') && !p.startsWith('checkpoints/'));
  const kept = current.reduce((n, [, b]) => n + b.length, 0);
  const rows: BenchRow[] = [
    {
      metric: `tile log: resources written per batch of ${TILE_BATCH.toLocaleString('en')}`,
      value: round(resources / batches, 1),
      unit: 'objects',
      note: `hash tiles, entry bundles, the checkpoint history copy and checkpoint; ${round((seconds / batches) * 1e3, 2)} ms to build a batch's resources (tree already grown)`,
    },
    {
      metric: 'tile log: bytes written per entry',
      value: round(written / TILE_LOG_ENTRIES, 1),
      unit: 'B',
      note: `entries average ${round(entryBytes / TILE_LOG_ENTRIES, 1)} B of canonical JSON; partial tiles and bundles rewritten each batch included`,
    },
    {
      metric: 'tile log: bytes kept per entry (full tiles and bundles)',
      value: round(kept / TILE_LOG_ENTRIES, 1),
      unit: 'B',
      note: `${round(kept / entryBytes, 2)}x the entries themselves: 2 B length prefix + ${'32'} B leaf hash + upper levels per entry`,
    },
  ];
  const logKeys = [parseVerifierKey(signer.verifierKey)];
  const started = process.hrtime.bigint();
  const report = await runMonitor({ fetch: async (p) => files.get(p) ?? null, logKeys, state: null, leaves: [] });
  const monitorSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (!report.ok) throw new Error(`the monitor refused the benchmark log: ${report.problem?.detail}`);
  rows.push({
    metric: `monitor: verify a ${TILE_LOG_ENTRIES.toLocaleString('en')}-entry log from scratch`,
    value: Math.round(TILE_LOG_ENTRIES / monitorSeconds),
    unit: 'entries/s',
    note: `in memory (no HTTP): checkpoint signature, every bundle against its level-0 tile, every higher tile, the root; ${round(monitorSeconds, 2)} s`,
  });
  return rows;
}

/** RFC 9162 consistency proofs: from the leaf hashes, and from the hash tiles (what GET /v1/ledger/consistency reads and does). */
function consistencyRows(): BenchRow[] {
  const sizes = [2 ** 10, 2 ** 20];
  const tree = new MerkleTree();
  const leaves: Buffer[] = [];
  const fromLeaves: number[] = [];
  const fromTiles: number[] = [];
  let tilesRead = 0;
  for (const n of sizes) {
    while (tree.size < n) {
      const leaf = leafHash(Buffer.from(String(tree.size)));
      leaves.push(leaf);
      tree.append(leaf);
    }
    const m = Math.floor(n * 0.7) + 3;
    if (!verifyConsistency(m, n, tree.root(m), tree.root(n), consistencyProof(m, n, leaves))) throw new Error('consistency proof does not verify');
    const repeat = n > 2 ** 12 ? 3 : 200;
    fromLeaves.push(percentile(timeSync(() => consistencyProof(m, n, leaves), repeat, 1), 50));
    const needed = tilesForConsistency(m, n);
    const view = { size: n, hash: (height: number, index: number) => tree.hash(height, index) };
    const tiles = new Map(needed.map((t) => [`${t.level}/${t.index}`, hashTileBytes(view, { ...t, width: Math.min(TILE_WIDTH, Math.ceil(n / 2 ** (TILE_HEIGHT * t.level)) - t.index * TILE_WIDTH) })]));
    tilesRead = needed.length;
    const source = (level: number, index: number) => tiles.get(`${level}/${index}`);
    if (!verifyConsistency(m, n, tree.root(m), tree.root(n), consistencyProofFromTiles(m, n, source))) throw new Error('consistency proof from tiles does not verify');
    fromTiles.push(percentile(timeSync(() => consistencyProofFromTiles(m, n, source), 2_000, 200), 50));
  }
  const [small, large] = sizes.map((n) => `2^${Math.log2(n)}`);
  return [
    { metric: `consistency proof from leaf hashes at n = ${small}`, value: round(fromLeaves[0], 1), unit: 'µs', note: 'O(n) hashes' },
    { metric: `consistency proof from leaf hashes at n = ${large}`, value: round(fromLeaves[1], 1), unit: 'µs' },
    { metric: `consistency proof from leaf hashes, n = ${large} vs ${small}`, value: ratio(fromLeaves[1], fromLeaves[0]), unit: 'x', note: `n grew ${sizes[1] / sizes[0]}x` },
    { metric: `consistency proof from hash tiles at n = ${large}`, value: round(fromTiles[1], 1), unit: 'µs', note: `what GET /v1/ledger/consistency does, from the ${tilesRead} tiles it reads in one request` },
    { metric: `consistency proof from hash tiles, n = ${large} vs ${small}`, value: ratio(fromTiles[1], fromTiles[0]), unit: 'x', note: `log n grew ${ratio(20, 10)}x` },
  ];
}

export const section: BenchSection = {
  name: 'ledger',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    return [...verificationRows(ctx), ...loaderRows(ctx), ...(await storeLoadRows(ctx)), ...inclusionRows(), ...(await tileRows(ctx)), ...consistencyRows()];
  },
};
