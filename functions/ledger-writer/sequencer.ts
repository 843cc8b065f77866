import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { integrateEvents, type DerivedEntry, type EventOutcome, type EventToIntegrate, type PartialTimeline, type StoredTimelineEntry } from '../domain/ingress/integrate';
import type { Head } from '../domain/kinds/kind';
import { timelineOf } from '../domain/kinds/timelines';
import { eventIdentityDigest } from '../domain/ingress/identity';
import { canonicalInstant, entrySk, eventPk } from '../store/layout';
import { listWaitingDeliveries, readDeliveries, settledDeliveryItem, type WaitingDelivery } from '../store/pending';
import { readRecordFrom, readRecordGenesis, readWholeRecord } from '../store/records';
import { readJournalHeader } from '../store/ledger';
import { entryItem, entrySeqOf, genesisItem } from '../store/write';
import { runLedgerBatch } from './batch';
import type { AppendOnlyLog } from './log';
import { LogCache, type TableLedgerOptions } from './table-ledger';

type Item = Record<string, AttributeValue>;

/**
 * The sequencer (docs/ingress.md#the-sequencer): integrates accepted deliveries into the records
 * and the ledger, a batch at a time, through the one writer path (runLedgerBatch: lease, leaves,
 * signed head, records). Per batch:
 *   1. the deliveries waiting, oldest first (strongly consistent reads of what the index lists);
 *   2. each record they name, read from the earliest instant its events state (a credential whole);
 *      the pure rules (integrate.ts) insert each event at the instant it states, set aside what
 *      breaks the lifecycle rules (tried again with the record's next events), and derive every
 *      entry after it again;
 *   3. a credential's status lists are reconciled with its new timeline (status-lists.ts);
 *   4. every new record version is logged, one checkpoint is signed for the batch, and each new
 *      version carries its inclusion proof;
 *   5. the changed entries are written (each new one names its event's identity, so integrating an
 *      event twice, whichever deliveries carried it, is impossible), and last each delivery is
 *      marked SEQUENCED or SET_ASIDE and leaves the index.
 * The batch is journaled (batch.ts): killed before its head is published, it left no record
 * written and runs again from the same records; killed after, the next writer finishes its journal.
 */

export const DEFAULT_BATCH_SIZE = 100;
/** The sequencer's lease: longer than a batch takes (and than its Lambda may run), so only a dead sequencer's lease runs out. */
export const SEQUENCER_LEASE_MS = 90_000;
/** Set-aside deliveries kept per record for another try (the newest); older ones stay set aside for good. */
export const MAX_SET_ASIDE = 100;

export interface SequencerOptions extends Omit<TableLedgerOptions, 'leaseMs' | 'unlock'> {
  /** Deliveries per batch (default 100). */
  batchSize?: number;
  /** Deliveries known to be waiting (a stream batch's new items), taken before the index is asked. */
  waiting?: readonly string[];
  leaseMs?: number;
}

export interface SequencerRun {
  deliveries: number;
  /** Deliveries integrated in this batch. */
  sequenced: number;
  /** Deliveries of this batch set aside (tried again with the record's next events). */
  setAside: number;
  /** Deliveries set aside earlier and integrated in this batch (counted in `sequenced` too). */
  retried: number;
  /** Entries written (new, or re-derived). */
  entriesWritten: number;
  /** Leaves appended to the log. */
  appended: number;
  treeSize: number | null;
  /** Why each set-aside delivery was set aside, by its key. */
  reasons: Record<string, string>;
}

/** The log as this process's last batch left it: the next batch reads only what others appended since (table-ledger.ts). */
const processLogCache = new LogCache();

/** Runs one batch; null when nothing was waiting. */
export async function sequencePending(options: SequencerOptions): Promise<SequencerRun | null> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const listed = await listWaitingDeliveries(options.client, options.table, batchSize);
  const candidates = [...new Set([...(options.waiting ?? []), ...listed])].slice(0, batchSize);
  // Nothing waiting: still finish a batch that stopped after publishing (its journal), if any.
  if (candidates.length === 0 && (await readJournalHeader(options.client, options.table))?.done !== false) return null;

  const { result, ledger } = await runLedgerBatch({ cache: processLogCache, ...options, leaseMs: options.leaseMs ?? SEQUENCER_LEASE_MS, journal: true }, async (log) => {
    const waiting = async (keys: readonly string[]) => (await readDeliveries(options.client, options.table, keys)).filter((d) => d.sequencing === 'PENDING' && d.event);
    let deliveries = await waiting(candidates);
    // The candidates were listed before the lease was taken: another writer (or the journal of a
    // stopped batch, just finished) may have integrated them since. Ask the index again.
    if (deliveries.length === 0) deliveries = await waiting(await listWaitingDeliveries(options.client, options.table, batchSize));
    const plan = await integrateDeliveries(options, deliveries, log);
    const at = new Date().toISOString();
    const settle = (d: WaitingDelivery) => {
      const outcome = plan.outcomes.get(d.key) ?? { key: d.key, sequenced: false, reason: 'the sequencer reached no decision' };
      return settledDeliveryItem(d, outcome.sequenced ? { sequenced: true, version: outcome.version } : { sequenced: false, reason: outcome.reason }, at);
    };
    // A delivery set aside before is written again only when it is integrated now.
    const retriedNow = plan.retried.filter((d) => plan.outcomes.get(d.key)?.sequenced);
    const outcomes = deliveries.map((d) => plan.outcomes.get(d.key));
    return {
      records: plan.items,
      last: [...deliveries, ...retriedNow].map(settle),
      result: {
        deliveries: deliveries.length,
        sequenced: outcomes.filter((o) => o?.sequenced).length + retriedNow.length,
        setAside: outcomes.filter((o) => !o?.sequenced).length,
        retried: retriedNow.length,
        entriesWritten: plan.items.length,
        reasons: Object.fromEntries(outcomes.flatMap((o) => (o && !o.sequenced ? [[o.key, o.reason]] : []))),
      },
    };
  });
  return { ...result, appended: ledger?.appended ?? 0, treeSize: ledger?.treeSize ?? null };
}

/** Runs batches until nothing is waiting (or `maxBatches`); what each did. */
export async function sequenceAll(options: SequencerOptions, maxBatches = Number.POSITIVE_INFINITY): Promise<SequencerRun[]> {
  const runs: SequencerRun[] = [];
  while (runs.length < maxBatches) {
    const run = await sequencePending(options);
    if (!run) break;
    runs.push(run);
    if (run.deliveries === 0) break;
  }
  return runs;
}

/**
 * A stored event as the rules take it. Its identity is its sender's CloudEvents (source, id), the
 * key the receivers store it under: an event item's own key, and for a delivery that carries its
 * event itself the key its event would have. The rules integrate each identity once, so a second
 * delivery of an integrated event, whatever stored it, never makes a second fact.
 */
function eventOf(delivery: WaitingDelivery): EventToIntegrate {
  const body = JSON.parse(delivery.event!.raw) as { source: string; id: string; data: Record<string, unknown> };
  return {
    key: delivery.key,
    identity: eventPk(delivery.sourceId, eventIdentityDigest(body)),
    type: delivery.event!.type,
    reference: delivery.event!.reference,
    at: canonicalInstant(delivery.event!.at),
    data: body.data,
  };
}

interface RecordPlan {
  reference: string;
  entries: DerivedEntry[];
  newHeads: Head[];
  stored: readonly StoredTimelineEntry[];
}

async function integrateDeliveries(
  options: SequencerOptions,
  deliveries: readonly WaitingDelivery[],
  log: AppendOnlyLog,
): Promise<{ items: Item[]; outcomes: Map<string, EventOutcome>; retried: WaitingDelivery[] }> {
  const outcomes = new Map<string, EventOutcome>();
  const byReference = new Map<string, EventToIntegrate[]>();
  // Deliveries come oldest first: events of the same instant are integrated in the order received.
  for (const d of [...deliveries].sort((a, b) => (a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : a.key < b.key ? -1 : 1))) {
    const event = eventOf(d);
    byReference.set(event.reference, [...(byReference.get(event.reference) ?? []), event]);
  }

  const plans: RecordPlan[] = [];
  const genesis: Item[] = [];
  const retried: WaitingDelivery[] = [];
  /** Per derived record (a status list): what the records projected onto it must show, and the earliest instant their events state. */
  const projected = new Map<string, { parts: unknown[]; from: string }>();
  for (const [reference, events] of byReference) {
    const record = await readRecordGenesis(options.client, options.table, reference);
    if (!record) {
      for (const e of events) outcomes.set(e.key, { key: e.key, sequenced: false, reason: `no record is held under ${reference}` });
      continue;
    }
    const rules = timelineOf(record.kind);
    // Events set aside for this record before are tried again with the new ones, all in instant
    // order: one set aside only because an earlier event had not arrived yet is integrated now.
    const parked = record.setAside.length > 0 ? (await readDeliveries(options.client, options.table, record.setAside)).filter((d) => d.sequencing === 'SET_ASIDE' && d.event) : [];
    const all = [...events, ...parked.map(eventOf)];
    const from = all.reduce((earliest, e) => (Date.parse(e.at) < Date.parse(earliest) ? e.at : earliest), all[0].at);
    // Read from the earliest instant an event states (two Queries, whatever the length of the
    // history before it), unless the kind needs its whole timeline (a credential, for its lists).
    let stored: StoredTimelineEntry[];
    let partial: PartialTimeline | undefined;
    if (!rules?.readsWhole && record.highestVersion !== null) {
      const part = await readRecordFrom(options.client, options.table, reference, from);
      stored = part.entries;
      partial = { before: part.before, highestVersion: record.highestVersion };
    } else {
      stored = (await readWholeRecord(options.client, options.table, reference))?.entries ?? [];
    }
    const integration = integrateEvents(record.kind ?? '', stored, all, partial);
    for (const o of integration.outcomes) outcomes.set(o.key, o);
    retried.push(...parked);
    const stillAside = integration.outcomes.filter((o) => !o.sequenced).map((o) => o.key).slice(-MAX_SET_ASIDE);
    const changed = integration.outcomes.some((o) => o.sequenced);
    const highest = Math.max(record.highestVersion ?? 0, ...stored.map((e) => e.head.version), ...integration.newHeads.map((h) => h.version));
    if (changed || stillAside.join() !== record.setAside.join()) genesis.push(genesisItem(reference, record.kind ?? '', highest, { setAside: stillAside }));
    plans.push({ reference, entries: integration.entries, newHeads: integration.newHeads, stored: partial?.before ? [partial.before, ...stored] : stored });
    if (!changed) continue;
    for (const projection of rules?.projections?.(integration.entries, from) ?? []) {
      const target = projected.get(projection.reference) ?? { parts: [], from: projection.from };
      target.parts.push(projection.part);
      if (Date.parse(projection.from) < Date.parse(target.from)) target.from = projection.from;
      projected.set(projection.reference, target);
    }
  }
  for (const [reference, { parts, from }] of projected) {
    const derived = await readRecordGenesis(options.client, options.table, reference);
    const rules = timelineOf(derived?.kind ?? null);
    if (!derived || !rules?.follow) continue;
    // A derived record's versions before the earliest change of this batch were reconciled by
    // earlier batches: its entries from then on (and the one in force then) are what can be wrong.
    let stored: StoredTimelineEntry[];
    if (derived.highestVersion !== null) {
      const part = await readRecordFrom(options.client, options.table, reference, from);
      stored = part.before ? [part.before, ...part.entries] : part.entries;
    } else {
      stored = (await readWholeRecord(options.client, options.table, reference))?.entries ?? [];
    }
    if (stored.length === 0) continue;
    const followed = rules.follow(stored, parts, derived.highestVersion ?? 0);
    plans.push({ reference, entries: followed.entries, newHeads: followed.newHeads, stored });
    const highest = Math.max(derived.highestVersion ?? 0, ...stored.map((e) => e.head.version), ...followed.newHeads.map((h) => h.version));
    if (followed.newHeads.length > 0) genesis.push(genesisItem(reference, derived.kind ?? '', highest, { setAside: derived.setAside }));
  }

  // Log every new version, sign once, and give each its inclusion proof against that checkpoint.
  const leaves = new Map<Head, number>();
  for (const plan of plans) for (const head of plan.newHeads) leaves.set(head, log.add(head.content, { reference: head.reference, version: head.version }).leafIndex);
  if (leaves.size > 0) {
    await log.seal();
    for (const [head, leafIndex] of leaves) head.evidence = log.evidence(leafIndex, head.version);
  }

  const items: Item[] = [];
  for (const plan of plans) {
    let seq = plan.stored.reduce((highest, e) => Math.max(highest, entrySeqOf(e.id)), -1);
    for (const e of plan.entries) {
      const record = { at: e.at, entry: e.entry, view: e.view, head: e.head, eventKey: e.eventKey };
      if (e.stored && unchanged(e.stored, record)) continue;
      items.push(entryItem(plan.reference, e.id ?? entrySk(e.at, ++seq), record));
    }
  }
  return { items: [...items, ...genesis], outcomes, retried };
}

function unchanged(stored: StoredTimelineEntry, derived: { entry: unknown; view: unknown; head: unknown; eventKey: string | null }): boolean {
  return (
    stored.eventKey === derived.eventKey &&
    JSON.stringify(stored.entry) === JSON.stringify(derived.entry) &&
    JSON.stringify(stored.view) === JSON.stringify(derived.view) &&
    JSON.stringify(stored.head) === JSON.stringify(derived.head)
  );
}
