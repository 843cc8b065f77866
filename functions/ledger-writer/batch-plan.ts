import { integrateEvents, type DerivedEntry, type EventOutcome, type EventToIntegrate, type PartialTimeline, type StoredTimelineEntry } from '../domain/ingress/integrate';
import type { Head } from '../domain/kinds/kind';
import { timelineOf } from '../domain/kinds/timelines';
import { CHECKPOINT_TO_COME } from '../store/checkpoint-to-come';
import type { PendingStore, Settlement, WaitingEvent } from '../store/ports/pending';
import type { RecordChange, RecordGenesis, RecordStore, StoredTimeline, TimelineRequest } from '../store/ports/records';
import type { AppendOnlyLog } from './log';

/** Set-aside events kept per record for another try (the newest); older ones stay set aside for good. */
export const MAX_SET_ASIDE = 100;

/** An event as the rules take it: its key is its identity (its sender and CloudEvents source and id). */
function eventOf(waiting: WaitingEvent): EventToIntegrate {
  const body = JSON.parse(waiting.event.raw) as { data: Record<string, unknown> };
  return { key: waiting.key, type: waiting.event.type, reference: waiting.event.reference, at: new Date(Date.parse(waiting.event.at)).toISOString(), data: body.data };
}

const earliestOf = (events: readonly { at: string }[]): string => events.reduce((earliest, e) => (Date.parse(e.at) < Date.parse(earliest) ? e.at : earliest), events[0].at);

export interface RecordPlan {
  reference: string;
  kind: string;
  entries: DerivedEntry[];
  newHeads: Head[];
  /** Where its new entries go (the part of the timeline they were derived from). */
  after: string;
  /** Its genesis as it must now be stored, and whether that differs from the stored one. */
  genesis: NonNullable<RecordChange['genesis']>;
  genesisChanged: boolean;
  /** The timeline's `tail` (RecordChange.tail). */
  tail?: string;
}

export interface BatchPlan {
  changes: RecordChange[];
  outcomes: Map<string, EventOutcome>;
  /** Events set aside before and tried again in this batch. */
  retried: WaitingEvent[];
}

/** What the records a batch's events change project onto the records derived from them (a credential's status lists): by derived record, the parts and the earliest instant their events state. */
export type Projected = Map<string, { parts: unknown[]; from: string }>;

/** What a batch's events do to the records they name, before anything is logged: each record's plan, what became of each event, and what the changed records project. */
export interface RecordsPlan {
  plans: RecordPlan[];
  outcomes: Map<string, EventOutcome>;
  retried: WaitingEvent[];
  projected: Projected;
}

/**
 * What a batch of events does to the records (docs/ingress.md#the-sequencer, steps 3 and 4), read
 * through the ports in a few round trips whatever the number of records: every record's genesis
 * and, at once, its timeline from the earliest instant its new events state (with the entry in
 * force then); the events set aside for them; the timelines again only where that was not enough
 * (whole when its kind says so, or from an earlier instant a set-aside event states); then the
 * same for the records derived from them (a credential's status lists). The pure rules integrate
 * the events (functions/domain/ingress/integrate.ts, the kinds); every new version is logged, one
 * checkpoint signed, and each new version given its inclusion proof.
 */
export async function planBatch(stores: { records: RecordStore; pending: PendingStore }, events: readonly WaitingEvent[], log: AppendOnlyLog, known?: KnownGeneses): Promise<BatchPlan> {
  const planned = await planRecords(stores, events, known);
  const plans = [...planned.plans, ...(await followProjections(stores.records, planned.projected))];
  logNewVersions(plans, log);
  return { changes: changesOf(plans), outcomes: planned.outcomes, retried: planned.retried };
}

/**
 * Logs every new version of `plans` and gives each its inclusion proof against the batch's
 * checkpoint, which the batch signs while it stores the leaves and the journal (batch.ts): until
 * then the evidence names it CHECKPOINT_TO_COME.
 */
export function logNewVersions(plans: readonly RecordPlan[], log: AppendOnlyLog): void {
  const leaves = new Map<Head, number>();
  for (const head of newVersionsOf(plans)) leaves.set(head, log.add(head.content, { reference: head.reference, version: head.version }).leafIndex);
  for (const [head, leafIndex] of leaves) head.evidence = log.evidence(leafIndex, head.version, CHECKPOINT_TO_COME);
}

/** The new versions of `plans`, in the order they are logged. */
export const newVersionsOf = (plans: readonly RecordPlan[]): Head[] => plans.flatMap((plan) => plan.newHeads);

/** The record changes `plans` write: the entries that changed, and the genesis of every record whose timeline changes. */
export function changesOf(plans: readonly RecordPlan[]): RecordChange[] {
  return plans.flatMap((plan): RecordChange[] => {
    const entries = plan.entries.filter((e) => !(e.stored && unchanged(e.stored, e))).map(({ id, at, entry, view, head, eventKey }) => ({ id, at, entry, view, head, eventKey }));
    // A record whose timeline changes has its genesis written too: it says where the newest items now are (records.ts).
    return entries.length > 0 || plan.genesisChanged ? [{ reference: plan.reference, kind: plan.kind, after: plan.after, tail: plan.tail, entries, genesis: plan.genesis }] : [];
  });
}

/**
 * What `events` do to the records they name (planBatch, without the records derived from them and
 * without the log): what a part of a batch plans (parts.ts).
 */
export async function planRecords(stores: { records: RecordStore; pending: PendingStore }, events: readonly WaitingEvent[], known?: KnownGeneses): Promise<RecordsPlan> {
  const outcomes = new Map<string, EventOutcome>();
  const byReference = new Map<string, EventToIntegrate[]>();
  // Oldest received first: events of the same instant are integrated in the order received.
  for (const e of [...events].sort((a, b) => (a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : a.key < b.key ? -1 : 1))) {
    const event = eventOf(e);
    byReference.set(event.reference, [...(byReference.get(event.reference) ?? []), event]);
  }
  // The geneses, then each timeline from the earliest instant its new events state (what most
  // records need), where the genesis says its newest items are (read by key: no search of the
  // record); read again below only where the genesis or earlier events ask for more.
  const guessed = new Map([...byReference].map(([reference, list]) => [reference, earliestOf(list)] as const));
  const geneses = await genesesOf(stores.records, [...byReference.keys()], known);
  const early = await readTimelinesAtOnce(stores.records, [...guessed].flatMap(([reference, from]) => (geneses.has(reference) ? [{ reference, from, tail: geneses.get(reference)!.tail }] : [])));
  // Events set aside for these records before are tried again with the new ones, all in instant
  // order: one set aside only because an earlier event had not arrived yet is integrated now.
  const parkedKeys = [...geneses.values()].flatMap((g) => g.setAside);
  const parked = parkedKeys.length > 0 ? (await stores.pending.readEvents(parkedKeys)).filter((e) => e.sequencing === 'SET_ASIDE') : [];
  const all = new Map([...byReference].map(([reference, list]) => [reference, [...list, ...parked.filter((e) => e.event.reference === reference).map(eventOf)]] as const));
  const wanted = [...all].flatMap(([reference, list]) => {
    const genesis = geneses.get(reference);
    return genesis ? [{ reference, from: wholeRead(timelineOf(genesis.kind), genesis) ? null : earliestOf(list), tail: genesis.tail }] : [];
  });
  const again = wanted.filter((w) => w.from === null || w.from !== guessed.get(w.reference));
  const timelines = new Map([...early].filter(([reference]) => !again.some((w) => w.reference === reference)));
  for (const [reference, timeline] of await readTimelinesAtOnce(stores.records, again)) timelines.set(reference, timeline);

  const plans: RecordPlan[] = [];
  const projected: Projected = new Map();
  for (const [reference, list] of all) {
    const genesis = geneses.get(reference);
    if (!genesis) {
      for (const e of list) outcomes.set(e.key, { key: e.key, sequenced: false, reason: `no record is held under ${reference}` });
      continue;
    }
    const rules = timelineOf(genesis.kind);
    const timeline = timelines.get(reference);
    const from = earliestOf(list);
    const stored = timeline?.entries ?? [];
    const partial: PartialTimeline | undefined = timeline?.before !== undefined && !wholeRead(rules, genesis) ? { before: timeline.before, highestVersion: genesis.highestVersion! } : undefined;
    const integration = integrateEvents(genesis.kind ?? '', stored, list, partial);
    for (const o of integration.outcomes) outcomes.set(o.key, o);
    const stillAside = integration.outcomes.filter((o) => !o.sequenced).map((o) => o.key).slice(-MAX_SET_ASIDE);
    const changed = integration.outcomes.some((o) => o.sequenced);
    const highest = Math.max(genesis.highestVersion ?? 0, ...stored.map((e) => e.head.version), ...integration.newHeads.map((h) => h.version));
    // Whether what the genesis says changes (an observation on a record events changed before makes no version); it is written anyway when the timeline changes (below).
    const genesisChanged = (changed && (highest !== genesis.highestVersion || !genesis.changedByEvents)) || stillAside.join() !== genesis.setAside.join();
    plans.push({ reference, kind: genesis.kind ?? '', entries: integration.entries, newHeads: integration.newHeads, after: timeline?.after ?? '-1', tail: timeline?.tail, genesis: { highestVersion: highest, events: { setAside: stillAside } }, genesisChanged });
    if (!changed) continue;
    for (const projection of rules?.projections?.(integration.entries, from) ?? []) addProjection(projected, projection);
  }
  return { plans, outcomes, retried: parked, projected };
}

/** Adds what one record projects onto a derived record to `projected` (its parts in order, the earliest instant). */
export function addProjection(projected: Projected, projection: { reference: string; part: unknown; from: string }): void {
  const target = projected.get(projection.reference) ?? { parts: [], from: projection.from };
  target.parts.push(projection.part);
  if (Date.parse(projection.from) < Date.parse(target.from)) target.from = projection.from;
  projected.set(projection.reference, target);
}

/** Geneses read already under this batch's lease: those of `references` (absent where none was found). */
export interface KnownGeneses {
  references: readonly string[];
  geneses: ReadonlyMap<string, RecordGenesis>;
}

/** The geneses of `references`: those known, and the others read (no request when all are known). */
async function genesesOf(records: RecordStore, references: readonly string[], known: KnownGeneses | undefined): Promise<Map<string, RecordGenesis>> {
  const asked = new Set(known?.references ?? []);
  const missing = references.filter((r) => !asked.has(r));
  const read = missing.length > 0 ? await records.readGeneses(missing) : new Map<string, RecordGenesis>();
  for (const reference of references) {
    const genesis = asked.has(reference) ? known?.geneses.get(reference) : undefined;
    if (genesis) read.set(reference, genesis);
  }
  return read;
}

/** A record is read whole when its kind says so, or when its genesis does not know its highest version. */
const wholeRead = (rules: ReturnType<typeof timelineOf>, genesis: RecordGenesis): boolean => rules?.readsWhole === true || genesis.highestVersion === null;

/** Timelines asked of the record store in one call; the calls of a batch are sent together, so every timeline is read at once. */
const TIMELINES_PER_CALL = 8;

/** The timelines asked (each from an instant, or whole), all at once; those whose genesis says where their newest items are in one call, whose reads by key the store sends together. */
async function readTimelinesAtOnce(records: RecordStore, requests: readonly TimelineRequest[]): Promise<Map<string, StoredTimeline>> {
  const readByKey = (r: TimelineRequest) => r.from !== null && r.tail !== undefined;
  const byKey = requests.filter(readByKey);
  const searched = requests.filter((r) => !readByKey(r));
  const calls: (typeof requests)[] = byKey.length > 0 ? [byKey] : [];
  for (let at = 0; at < searched.length; at += TIMELINES_PER_CALL) calls.push(searched.slice(at, at + TIMELINES_PER_CALL));
  const parts = await Promise.all(calls.map((call) => records.readTimelines(call)));
  return new Map(parts.flatMap((part) => [...part]));
}

/**
 * The derived records follow what was projected onto them: their versions before the earliest
 * change of this batch were reconciled by earlier batches, so their entries from then on (and the
 * one in force then) are what can be wrong.
 */
export async function followProjections(records: RecordStore, projected: Projected): Promise<RecordPlan[]> {
  if (projected.size === 0) return [];
  const geneses = await records.readGeneses([...projected.keys()]);
  const timelines = await records.readTimelines([...projected].flatMap(([reference, { from }]) => {
    const genesis = geneses.get(reference);
    return genesis ? [{ reference, from: genesis.highestVersion === null ? null : from, tail: genesis.tail }] : [];
  }));
  const plans: RecordPlan[] = [];
  for (const [reference, { parts }] of projected) {
    const genesis = geneses.get(reference);
    const rules = timelineOf(genesis?.kind ?? null);
    const timeline = timelines.get(reference);
    if (!genesis || !rules?.follow || !timeline) continue;
    const stored: StoredTimelineEntry[] = timeline.before ? [timeline.before, ...timeline.entries] : timeline.entries;
    const followed = rules.follow(stored, parts, genesis.highestVersion ?? 0);
    const highest = Math.max(genesis.highestVersion ?? 0, ...stored.map((e) => e.head.version), ...followed.newHeads.map((h) => h.version));
    plans.push({ reference, kind: genesis.kind ?? '', entries: followed.entries, newHeads: followed.newHeads, after: timeline.after, tail: timeline.tail, genesis: { highestVersion: highest, events: { setAside: genesis.setAside } }, genesisChanged: followed.newHeads.length > 0 });
  }
  return plans;
}

function unchanged(stored: StoredTimelineEntry, derived: { entry: unknown; view: unknown; head: unknown; eventKey: string | null }): boolean {
  return (
    stored.eventKey === derived.eventKey &&
    JSON.stringify(stored.entry) === JSON.stringify(derived.entry) &&
    JSON.stringify(stored.view) === JSON.stringify(derived.view) &&
    JSON.stringify(stored.head) === JSON.stringify(derived.head)
  );
}

/** What a batch (or a part of one) did with its events. */
export interface BatchSummary {
  deliveries: number;
  /** Events integrated. */
  sequenced: number;
  /** Events set aside (tried again with the record's next events). */
  setAside: number;
  /** Events set aside earlier and integrated now (counted in `sequenced` too). */
  retried: number;
  /** Entries written (new, or re-derived). */
  entriesWritten: number;
  /** Why each set-aside event was set aside, by its key. */
  reasons: Record<string, string>;
}

/** How the events of a plan are settled (SEQUENCED with the version each made, or SET_ASIDE and why), and what the plan did. */
export function settlementsOf(events: readonly WaitingEvent[], plan: Pick<RecordsPlan, 'outcomes' | 'retried'>): { settlements: Settlement[]; summary: Omit<BatchSummary, 'entriesWritten'> } {
  const at = new Date().toISOString();
  const settle = (event: WaitingEvent): Settlement => {
    const outcome = plan.outcomes.get(event.key) ?? { key: event.key, sequenced: false, reason: 'the sequencer reached no decision' };
    return { event, outcome: outcome.sequenced ? { sequenced: true, version: outcome.version } : { sequenced: false, reason: outcome.reason }, at };
  };
  // An event set aside before is settled again only when it is integrated now.
  const retriedNow = plan.retried.filter((e) => plan.outcomes.get(e.key)?.sequenced);
  const outcomes = events.map((e) => plan.outcomes.get(e.key));
  return {
    settlements: [...events, ...retriedNow].map(settle),
    summary: {
      deliveries: events.length,
      sequenced: outcomes.filter((o) => o?.sequenced).length + retriedNow.length,
      setAside: outcomes.filter((o) => !o?.sequenced).length,
      retried: retriedNow.length,
      reasons: Object.fromEntries(outcomes.flatMap((o) => (o && !o.sequenced ? [[o.key, o.reason]] : []))),
    },
  };
}

/** Entries a batch's record changes write (new, or re-derived), geneses included. */
export const entriesWrittenBy = (changes: readonly RecordChange[]): number => changes.reduce((n, c) => n + c.entries.length + (c.genesis ? 1 : 0), 0);
