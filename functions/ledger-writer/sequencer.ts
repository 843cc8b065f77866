import { randomUUID } from 'node:crypto';
import { leafHash } from '#verify/node/hashing';
import type { PendingStore } from '../store/ports/pending';
import type { RecordStore } from '../store/ports/records';
import { runLedgerBatch, type PartApart, type PreparedBatch } from './batch';
import { addProjection, changesOf, entriesWrittenBy, followProjections, logNewVersions, planBatch, settlementsOf, type BatchSummary, type Projected } from './batch-plan';
import { LogCache, type LedgerWriterOptions } from './held-ledger';
import type { AppendOnlyLog } from './log';
import type { LogResource } from '../domain/ledger/tiles';
import { partOf, type PartRequest, type PartWriters } from './parts';

/**
 * The sequencer (docs/ingress.md#the-sequencer): integrates accepted events into the records and
 * the ledger, a batch at a time, through the one writer path (runLedgerBatch: lease, leaves,
 * signed head, records) and the storage ports only. Per batch:
 *   1. the events waiting, oldest first (strongly consistent reads of what the pending store lists);
 *   2. what they do to the records (batch-plan.ts): each record they name read from the earliest
 *      instant its events state (its kind may want it whole), the pure rules insert each event at
 *      the instant it states, set aside what breaks them (tried again with the record's next
 *      events), derive every entry after it again, and the records derived from it follow;
 *   3. every new record version is logged, one checkpoint is signed for the batch, and each new
 *      version carries its inclusion proof;
 *   4. the changed entries are written (each new one names its event's identity, so integrating an
 *      event twice is impossible), and last each event is settled: SEQUENCED or SET_ASIDE.
 * The batch is journaled (batch.ts): killed before its head is published, it left no record
 * written and runs again from the same records; killed after, the next writer finishes its journal.
 */

/**
 * Events per batch at most: a batch is cut by this count or by time (what the stream gathered in a
 * second, lib/stack/sequencer.ts), whichever comes first; its round trips do not grow with it. Under
 * a backlog every batch is full, so this count sets how many events share a batch's eight round
 * trips, its signature and its tiles: 500 is about half a second of one sequencer's work
 * (docs/capacity.md#one-logs-speed), so an event behind a full batch still waits about a second.
 */
export const DEFAULT_BATCH_SIZE = 500;
/**
 * Batches listed at once when the pending store is asked what waits (1,000 keys): a look at the index is a
 * Query of each of its 64 shards, so one look serves the next batches of the same run (each
 * given the keys the one before it listed and did not take: SequencerRun.listedAfter) instead of
 * every batch asking again. A key listed is read again strongly consistent before it is taken, so
 * one integrated meanwhile is only passed over.
 */
export const LIST_AHEAD_BATCHES = 2;
/** The sequencer's lease: longer than a batch takes (and than its Lambda may run), so only a dead sequencer's lease runs out. */
export const SEQUENCER_LEASE_MS = 90_000;
/**
 * Record write requests (BatchWriteItems of 25) in flight at once: twice what a full batch's heads,
 * or its entries, take (DEFAULT_BATCH_SIZE / 25), so a step stays one round trip when a late event
 * re-derives entries after it; the settlements, sent beside the geneses (pending.ts), and these
 * stay within the SDK client's 50 sockets (functions/store/client.ts).
 */
const RECORD_WRITE_CONCURRENCY = 40;

export interface SequencerOptions extends Omit<LedgerWriterOptions, 'leaseMs' | 'unlock'> {
  records: RecordStore;
  pending: PendingStore;
  /** Events per batch (default DEFAULT_BATCH_SIZE). */
  batchSize?: number;
  /** Events known to be waiting (a stream batch's new items), taken before the pending store is asked. */
  waiting?: readonly string[];
  /**
   * Whether the pending store may be asked what waits (default true). A run woken by the stream
   * passes false while it has looked recently: the stream brings every event newly waiting, and a
   * look is a Query of each of the index's 64 shards (functions/handlers/sequence-events.ts).
   */
  look?: boolean;
  /**
   * Records the known waiting events name (a stream batch's images): their geneses are read
   * together with the events, a round trip before the batch would know them.
   */
  named?: readonly string[];
  leaseMs?: number;
  /**
   * Who plans and writes the parts of a large batch (parts.ts; none: every batch in this process).
   * A batch they cut into more than one part is planned by them, by reference, and the sequencer
   * only logs, signs, journals and publishes it.
   */
  parts?: PartWriters;
  /** The references the known waiting events name, by key (a stream batch's images): how a batch in parts sends each to its part without reading it. */
  references?: ReadonlyMap<string, string>;
}

/** What one batch did (BatchSummary: its events, the entries it wrote) and what it left. */
export interface SequencerRun extends BatchSummary {
  /** Leaves appended to the log. */
  appended: number;
  treeSize: number | null;
  /** Keys known or listed as waiting and not taken by this batch, oldest received first: the next batch's `waiting`. */
  listedAfter: string[];
  /** Whether this batch asked the pending store what waits (so a batch not full saw all that waited). */
  looked: boolean;
}

/** The log as this process's last batch left it: the next batch reads only what others appended since (held-ledger.ts). */
const processLogCache = new LogCache();

/** Runs one batch; null when nothing was waiting. */
export async function sequencePending(options: SequencerOptions): Promise<SequencerRun | null> {
  const batchSize = options.batchSize ?? options.parts?.batchSize ?? DEFAULT_BATCH_SIZE;
  const known = [...new Set(options.waiting ?? [])];
  const look = options.look ?? true;
  let looked = look && known.length < batchSize;
  // The index is asked only for what the stream did not bring; with it, whether a stopped batch
  // left a journal (one round trip), which matters here only when nothing is known: otherwise the
  // batch runs anyway, and reads the journal's header under the lease (batch.ts).
  const [listed, unfinished] = await Promise.all([looked ? options.pending.listWaiting(batchSize * LIST_AHEAD_BATCHES) : [], known.length === 0 ? options.ledger.journal.unfinished() : null]);
  const all = [...new Set([...known, ...listed])];
  const candidates = all.slice(0, batchSize);
  // Nothing waiting: still finish a batch that stopped after publishing (its journal), if any.
  if (candidates.length === 0 && !unfinished) return null;
  const batch = { cache: processLogCache, ...options, leaseMs: options.leaseMs ?? SEQUENCER_LEASE_MS, journal: true, recordsConcurrency: RECORD_WRITE_CONCURRENCY };
  const ran = (outcome: { result: BatchSummary; ledger: { appended: number; treeSize: number } | null }): SequencerRun => ({
    ...outcome.result,
    appended: outcome.ledger?.appended ?? 0,
    treeSize: outcome.ledger?.treeSize ?? null,
    listedAfter: all.slice(batchSize),
    looked,
  });

  const waiting = async (keys: readonly string[]) => (keys.length === 0 ? [] : (await options.pending.readEvents(keys)).filter((e) => e.sequencing === 'PENDING'));
  // A stopped batch's journal finished under the lease settled events listed before it: the batch takes the first of those listed that still wait.
  const stillWaiting = async () => (await waiting(all)).slice(0, batchSize);
  const parts = options.parts?.partsFor(candidates.length) ?? 1;
  if (parts > 1) {
    const writers = options.parts!;
    return ran(
      await runLedgerBatch({ ...batch, storeTiles: (resources, dir) => storeTilesInParts(writers, resources, dir, parts) }, async (log, _prefetched, journalFinished) => {
        const taken = journalFinished ? (await stillWaiting()).map((e) => e.key) : candidates;
        return prepareInParts(options, writers, taken, writers.partsFor(taken.length), log);
      }),
    );
  }

  const named = options.named ?? [];
  const prefetch = async () => {
    const [events, geneses] = await Promise.all([waiting(candidates), named.length > 0 ? options.records.readGeneses(named) : undefined]);
    return { events, geneses };
  };
  return ran(
    await runLedgerBatch(
      batch,
      async (log, prefetched, journalFinished) => {
        // The candidates, read under the lease while the log was opened (read again if a stopped batch's journal was just finished).
        let events = prefetched?.events ?? (journalFinished ? await stillWaiting() : await waiting(candidates));
        const knownGeneses = prefetched?.geneses ? { references: named, geneses: prefetched.geneses } : undefined;
        // The candidates were listed before the lease was taken: another writer (or the journal of a
        // stopped batch, just finished) may have integrated them since. Ask again, if it may.
        if (events.length === 0 && look) {
          looked = true;
          events = await waiting(await options.pending.listWaiting(batchSize));
        }
        const plan = await planBatch(options, events, log, knownGeneses);
        const { settlements, summary } = settlementsOf(events, plan);
        return { records: plan.changes, settlements, result: { ...summary, entriesWritten: entriesWrittenBy(plan.changes) } };
      },
      prefetch,
    ),
  );
}

/**
 * A batch in parts (parts.ts): each waiting event sent to the part of its reference (the one its
 * stream image named, or the one the part writers read for it), every part planned at once by
 * the part writers; then here, the status lists the parts' credentials project onto, and the log: each
 * part's new versions appended in turn (a part's ordinals become its leaves from `start`), then
 * the status lists'. Each part is written by its writer once the head is published, handed where
 * its leaves sit and the frontier their proofs need (growth.ts PartPlacement): the writer makes
 * their evidence.
 */
async function prepareInParts(options: SequencerOptions, writers: PartWriters, candidates: readonly string[], count: number, log: AppendOnlyLog): Promise<PreparedBatch<BatchSummary>> {
  // Each key's reference: the stream's images name them; the keys a look at the index listed
  // (keys only) are routed by the part writers, which read those events, so their bytes never
  // pass through the sequencer (docs/capacity.md#one-log-many-writers). A key no longer waiting
  // comes back unrouted and is passed over.
  const references = options.references ?? new Map<string, string>();
  const unnamed = candidates.filter((key) => !references.has(key));
  const routed = new Map((await Promise.all(slices(unnamed, count).map((keys) => writers.route(keys)))).flatMap((m) => [...m]));
  const referenceOf = (key: string): string | undefined => references.get(key) ?? routed.get(key);
  // Each part stores its chunks itself, under a name of this batch's and its own: a batch run again (or its stopped parts still writing) never meets another's.
  const batchId = randomUUID();
  const requests = Array.from({ length: count }, (_, i): PartRequest & { names: Set<string> } => ({ keys: [], events: [], named: [], journal: `${batchId}-${i}`, names: new Set() }));
  const route = (reference: string) => requests[partOf(reference, count)];
  for (const key of candidates) {
    const reference = referenceOf(key);
    if (reference === undefined) continue;
    route(reference).keys.push(key);
    route(reference).names.add(reference);
  }
  const planned = await Promise.all(requests.filter((r) => r.keys.length + r.events.length > 0).map(({ keys, events, names, journal }) => writers.plan({ keys, events, named: [...names], journal })));

  const projected: Projected = new Map();
  for (const part of planned) for (const { reference, parts, from } of part.projections) for (const p of parts) addProjection(projected, { reference, part: p, from });
  const derived = await followProjections(options.records, projected);
  const starts = planned.map((part) => {
    const start = log.size;
    for (const leaf of part.leaves) log.appendNew(leaf.entry, leafHash(leaf.entry), leaf);
    return start;
  });
  logNewVersions(derived, log);
  // Each part is handed where its leaves sit and what their proofs need of the tree the batch made (growth.ts PartPlacement).
  const batchStart = starts[0] ?? log.size;
  const apart = planned.map((part, i): PartApart => {
    const start = starts[i];
    const end = start + part.leaves.length;
    const leaves = Buffer.concat(log.newLeaves.slice(start - batchStart, end - batchStart).map((leaf) => leaf.leafHash));
    const frontier = part.leaves.length > 0 ? log.frontier(start, end) : [];
    return {
      start,
      leaves: part.leaves.length,
      chunks: part.chunks,
      stored: part.stored,
      write: (checkpoint) =>
        writers.write({ chunks: part.chunks, stored: part.stored, placement: { origin: log.origin, start, leaves, treeSize: log.size, frontier, checkpoint: part.leaves.length > 0 ? checkpoint() : '' } }),
    };
  });
  const records = changesOf(derived);
  const summaries = planned.map((p) => p.summary);
  const sum = (field: 'deliveries' | 'sequenced' | 'setAside' | 'retried' | 'entriesWritten') => summaries.reduce((n, s) => n + s[field], 0);
  return {
    records,
    settlements: [],
    parts: apart,
    result: {
      deliveries: sum('deliveries'),
      sequenced: sum('sequenced'),
      setAside: sum('setAside'),
      retried: sum('retried'),
      entriesWritten: sum('entriesWritten') + entriesWrittenBy(records),
      reasons: Object.assign({}, ...summaries.map((s) => s.reasons)),
    },
  };
}

/** `items` cut into at most `count` runs of about the same length, none empty. */
function slices<T>(items: readonly T[], count: number): T[][] {
  const size = Math.ceil(items.length / Math.max(1, count));
  return size === 0 ? [] : Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/**
 * A batch's new tiles and bundles, stored by up to `count` part writers at once, about as many
 * bytes each: the sequencer sends the bytes once, where storing them itself would be a request a
 * tile (docs/capacity.md#one-log-many-writers).
 */
async function storeTilesInParts(writers: PartWriters, resources: readonly LogResource[], dir: string, count: number): Promise<void> {
  const groups = Array.from({ length: Math.min(count, resources.length) }, () => ({ bytes: 0, resources: [] as LogResource[] }));
  for (const resource of [...resources].sort((a, b) => b.bytes.length - a.bytes.length)) {
    const lightest = groups.reduce((least, g) => (g.bytes < least.bytes ? g : least));
    lightest.resources.push(resource);
    lightest.bytes += resource.bytes.length;
  }
  await Promise.all(groups.map((g) => writers.storeTiles({ dir, resources: g.resources })));
}

/** Runs batches until nothing is waiting (or `maxBatches`); what each did. */
export async function sequenceAll(options: SequencerOptions, maxBatches = Number.POSITIVE_INFINITY): Promise<SequencerRun[]> {
  const runs: SequencerRun[] = [];
  let waiting = options.waiting;
  while (runs.length < maxBatches) {
    const run = await sequencePending({ ...options, waiting });
    waiting = run?.listedAfter;
    if (!run) break;
    runs.push(run);
    if (run.deliveries === 0) break;
  }
  return runs;
}
