import type { IngressReceipt } from '../../contract/ingress';
import type { StoredDelivery, StoredEvent } from '../../store/ports/pending';
import type { BatchItem } from './batch-body';
import { eventContentDigest, eventIdentityDigest } from './identity';
import { isStoredBatch, receiptOf, withSequencing, type Delivery, type Note, type Outcome, type ReceiverStores, type RefusalCode } from './receive';
import { currentRecordOf, decide, type CurrentRecord } from './rules';

/**
 * A verified delivery of many events (CloudEvents' JSON batch format), received once per event and
 * answered once per webhook-id (docs/ingress.md#many-events-in-one-delivery). Each event keeps its
 * own identity, its own rules and its own answer, exactly as if it came alone; the delivery's answer
 * lists them in order. Pure but for the two stores it is given:
 *   1. together: what is stored for the webhook-id and for every event's identity (one request per
 *      100 keys, sent at once) and every record the events name (one Query each, sent at once);
 *   2. a webhook-id answered before gets that answer again, rebuilt from what it keeps and from the
 *      events' items (where their sequencing stands now); another body, or a delivery of one event
 *      under the same webhook-id, is 409 WEBHOOK_ID_REUSED;
 *   3. else each item: unreadable (422/413), an event already stored (answered from it, or 409
 *      EVENT_ID_REUSED for other content), a second item of the same identity in the batch (answered
 *      as the first, or 409 for other content), or the kind's rules decide;
 *   4. every accepted event is claimed by its own conditional write, all at once;
 *   5. the delivery's answer is stored once under its webhook-id (one conditional write, compact:
 *      what an item was, not its receipt), then 200 with every item's answer.
 * A claim the store did not acknowledge (whatever the failure) leaves its event not stored: the delivery is answered 503
 * with the items (those stored say so) and its answer is not kept, so the sender's retry (the same
 * webhook-id) completes it: the events stored by the first attempt are answered ACCEPTED from their
 * items (their receipt names this webhook-id), the others are judged and claimed; none is stored twice.
 */

export type BatchResult = 'ACCEPTED' | 'ALREADY_STORED' | 'REFUSED' | 'NOT_STORED';

/** One item's answer: its receipt (accepted, already stored) or its problem (refused, not stored). */
export interface BatchItemAnswer {
  index: number;
  result: BatchResult;
  status: number;
  eventSource?: string;
  eventId?: string;
  receipt?: IngressReceipt;
  problem?: { status: number; code: string; detail: string; extra: Record<string, unknown> };
}

export type BatchAnswer =
  /** 200: every item answered (a 503 item cannot be among them). */
  | { status: 200; items: BatchItemAnswer[]; replayed: boolean; receivedAt: string; notes: Note[] }
  /** 503: some accepted events could not be stored; the answer is not kept, a retry completes the delivery. */
  | { status: 503; items: BatchItemAnswer[]; receivedAt: string; notes: Note[] }
  /** The delivery refused whole (409 WEBHOOK_ID_REUSED). */
  | { status: 409; refusal: { code: RefusalCode; detail: string; extra: Record<string, unknown> }; notes: Note[] };

/** What the webhook-id keeps of each item: enough to answer the same again, not the receipts (the events' items hold them). */
type KeptItem =
  | { k: 'A'; effect: IngressReceipt['effect'] }
  | { k: 'S'; receipt: IngressReceipt }
  | { k: 'R'; problem: ItemProblem }
  | { k: 'I' }
  | { k: 'D'; of: number };

interface KeptBatch {
  batch: 1;
  receivedAt: string;
  items: KeptItem[];
}

interface Identity {
  source: string;
  id: string;
  digest: string;
  contentSha256: string;
}

/** What happens to one item, once the reads are in. */
type Plan =
  | { kind: 'invalid'; problem: ItemProblem }
  | { kind: 'refused'; problem: ItemProblem }
  | { kind: 'stored'; event: StoredEvent }
  | { kind: 'duplicate'; of: number }
  | { kind: 'claim'; receipt: IngressReceipt };

type ItemProblem = NonNullable<BatchItemAnswer['problem']>;

const problemOf = (o: ItemProblem): ItemProblem => ({ status: o.status, code: o.code, detail: o.detail, extra: o.extra });

/**
 * Store calls of one delivery in flight at once: the records' reads, then the claims. Below the
 * store client's 50 sockets (functions/store/client.ts), so no request waits in the agent's queue,
 * where the connection timeout runs; 100 claims are 4 round trips of 25 instead of 100 in turn.
 */
const CALLS_AT_ONCE = 25;

/** `fn` over every item, at most `limit` at once, each settled (a rejection does not stop the others). */
async function settleAtMost<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const out: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        out[index] = { status: 'fulfilled', value: await fn(items[index], index) };
      } catch (reason) {
        out[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export async function receiveBatch(stores: ReceiverStores, delivery: Delivery, items: readonly BatchItem[], attempt = 0): Promise<BatchAnswer> {
  const identities = items.map((item) => ('event' in item ? identityOf(item) : null));
  const references = [...new Set(items.flatMap((item) => ('event' in item ? [item.event.reference] : [])))];
  const [stored, records] = await Promise.all([
    stores.pending.lookUpBatch(delivery, identities.flatMap((i) => (i ? [i.digest] : []))),
    settleAtMost(references, CALLS_AT_ONCE, (reference) => stores.records.readWindow(reference, delivery.receivedAt, 1).then((w) => [reference, currentRecordOf(w)] as const)),
  ]);
  for (const read of records) if (read.status === 'rejected') throw read.reason;
  const events = new Map<string, StoredEvent>();
  identities.filter((i) => i !== null).forEach((identity, n) => stored.events[n] && events.set(identity.digest, stored.events[n]));
  if (stored.delivery) return answerAgain(delivery, items, identities, events, stored.delivery);
  // An empty batch (valid in CloudEvents' batch format) decides nothing: answered, not kept.
  if (items.length === 0) return { status: 200, items: [], replayed: false, receivedAt: delivery.receivedAt, notes: [] };

  const recordOf = new Map<string, CurrentRecord>(records.map((r) => (r as PromiseFulfilledResult<readonly [string, CurrentRecord]>).value));
  const plans = planItems(delivery, items, identities, events, recordOf);
  const claims = await settleAtMost(plans, CALLS_AT_ONCE, (plan, index) => (plan.kind === 'claim' ? claimItem(stores, delivery, items[index], identities[index]!, plan.receipt) : Promise.resolve(null)));
  // A claim lost to a concurrent delivery of the same event: that event is what is stored.
  claims.forEach((claim, index) => {
    if (claim.status === 'fulfilled' && claim.value && !claim.value.claimed) plans[index] = { kind: 'stored', event: claim.value.stored };
  });
  const answers = plans.map((plan, index) => answerOf(delivery, plan, index, identities[index], claims[index].status === 'rejected'));
  plans.forEach((plan, index) => {
    if (plan.kind === 'duplicate') answers[index] = duplicateAnswer(answers[plan.of], index);
  });
  const notes = notesOf(delivery, answers);
  // A claim that did not resolve was not acknowledged, whatever the store said: the event is answered NOT_STORED, and the reason logged.
  const failed = claims.flatMap((c) => (c.status === 'rejected' ? [c.reason as Error] : []));
  if (failed.length > 0) notes.push({ level: 'warn', message: 'events not stored', fields: { sourceId: delivery.sourceId, webhookId: delivery.webhookId, count: failed.length, error: failed[0]?.name, detail: failed[0]?.message } });
  if (answers.some((a) => a.result === 'NOT_STORED')) return { status: 503, items: answers, receivedAt: delivery.receivedAt, notes };

  const kept: KeptBatch = { batch: 1, receivedAt: delivery.receivedAt, items: plans.map((plan, index) => keptItem(plan, answers[index])) };
  const put = await stores.pending.answerOnce({ ...delivery, status: 200, answer: kept });
  // A concurrent copy of this delivery kept its answer first: answer what it kept.
  if (!put.stored && attempt === 0) return receiveBatch(stores, delivery, items, 1);
  return { status: 200, items: answers, replayed: false, receivedAt: delivery.receivedAt, notes };
}

const aboutOf = (identity: Identity | null | undefined) => (identity ? { eventSource: identity.source, eventId: identity.id } : {});

function identityOf(item: Extract<BatchItem, { event: unknown }>): Identity {
  return { source: item.event.source, id: item.event.id, digest: eventIdentityDigest(item.event), contentSha256: eventContentDigest(item.value) };
}

/** Each item's fate, in order: the first item of an identity decides it; later ones follow it. */
function planItems(delivery: Delivery, items: readonly BatchItem[], identities: readonly (Identity | null)[], events: Map<string, StoredEvent>, records: Map<string, CurrentRecord>): Plan[] {
  const first = new Map<string, number>();
  return items.map((item, index): Plan => {
    if ('invalid' in item) return { kind: 'invalid', problem: problemOf(item.invalid) };
    const identity = identities[index]!;
    const leader = first.get(identity.digest);
    if (leader !== undefined) {
      if (identities[leader]!.contentSha256 === identity.contentSha256) return { kind: 'duplicate', of: leader };
      return { kind: 'refused', problem: eventIdReused(identity, `is given twice in this batch with other content (first as event ${leader})`) };
    }
    first.set(identity.digest, index);
    const stored = events.get(identity.digest);
    if (stored) {
      if (stored.contentSha256 !== identity.contentSha256) return { kind: 'refused', problem: eventIdReused(identity, 'was already received with other content') };
      return { kind: 'stored', event: stored };
    }
    const decision = decide(item.event, records.get(item.event.reference)!, delivery.receivedAt);
    if (!decision.ok) return { kind: 'refused', problem: { status: decision.status, code: decision.code, detail: decision.detail, extra: decision.field ? { field: decision.field } : {} } };
    return { kind: 'claim', receipt: receiptOf(delivery, item.event, decision.effect) };
  });
}

function eventIdReused(identity: Identity, what: string): ItemProblem {
  return {
    status: 409,
    code: 'EVENT_ID_REUSED',
    detail: `Event '${identity.id}' of source '${identity.source}' ${what}; an event's id names one event, so a new event needs a new id.`,
    extra: { eventSource: identity.source, eventId: identity.id },
  };
}

function claimItem(stores: ReceiverStores, delivery: Delivery, item: BatchItem, identity: Identity, receipt: IngressReceipt) {
  const { event, raw } = item as Extract<BatchItem, { event: unknown }>;
  const answer: Outcome = { status: 202, receipt };
  return stores.pending.claim({ ...delivery, status: 202, answer, identity, event: { raw, type: event.type, reference: event.reference, at: event.at, effect: receipt.effect } });
}

function answerOf(delivery: Delivery, plan: Plan, index: number, identity: Identity | null, notStored: boolean): BatchItemAnswer {
  const base = { index, ...aboutOf(identity) };
  switch (plan.kind) {
    case 'invalid':
    case 'refused':
      return { ...base, result: 'REFUSED', status: plan.problem.status, problem: plan.problem };
    case 'duplicate':
      return { ...base, result: 'REFUSED', status: 0 };
    case 'stored': {
      const receipt = (withSequencing(plan.event.answer as Outcome, plan.event) as { receipt: IngressReceipt }).receipt;
      // An event this very delivery stored (an earlier attempt, or a concurrent copy): accepted by it.
      return { ...base, result: receipt.webhookId === delivery.webhookId ? 'ACCEPTED' : 'ALREADY_STORED', status: 202, receipt };
    }
    case 'claim':
      if (notStored) return { ...base, result: 'NOT_STORED', status: 503, problem: { status: 503, code: 'DEPENDENCY_UNAVAILABLE', detail: 'The event could not be stored. Retry the delivery shortly.', extra: {} } };
      return { ...base, result: 'ACCEPTED', status: 202, receipt: plan.receipt };
  }
}

/** A second item of an event in the batch is answered as the first: already stored once the first is, else the same. */
function duplicateAnswer(leader: BatchItemAnswer, index: number): BatchItemAnswer {
  return { ...leader, index, result: leader.result === 'ACCEPTED' ? 'ALREADY_STORED' : leader.result };
}

function keptItem(plan: Plan, answer: BatchItemAnswer): KeptItem {
  switch (plan.kind) {
    case 'invalid':
      return { k: 'I' };
    case 'refused':
      return { k: 'R', problem: plan.problem };
    case 'duplicate':
      return { k: 'D', of: plan.of };
    case 'stored':
      return answer.result === 'ACCEPTED' ? { k: 'A', effect: answer.receipt!.effect } : { k: 'S', receipt: answer.receipt! };
    case 'claim':
      return { k: 'A', effect: plan.receipt.effect };
  }
}

/** A webhook-id answered before: the same answer for the same body, rebuilt from what it kept; 409 for another body or another form. */
function answerAgain(delivery: Delivery, items: readonly BatchItem[], identities: readonly (Identity | null)[], events: Map<string, StoredEvent>, earlier: StoredDelivery): BatchAnswer {
  if (earlier.bodySha256 !== delivery.bodySha256 || !isStoredBatch(earlier.answer)) {
    const detail = `webhook-id '${delivery.webhookId}' was already delivered with another body; a new delivery needs a new webhook-id.`;
    return { status: 409, refusal: { code: 'WEBHOOK_ID_REUSED', detail, extra: { webhookId: delivery.webhookId } }, notes: [] };
  }
  const kept = earlier.answer as KeptBatch;
  const first = { ...delivery, receivedAt: kept.receivedAt };
  const answers: BatchItemAnswer[] = [];
  kept.items.forEach((k, index) => answers.push(keptAnswer(first, k, index, items[index], identities[index], events, answers)));
  return { status: 200, items: answers, replayed: true, receivedAt: kept.receivedAt, notes: [] };
}

/** One item answered again from what its webhook-id kept, with where its event's sequencing stands now. */
function keptAnswer(first: Delivery, k: KeptItem, index: number, item: BatchItem, identity: Identity | null, events: Map<string, StoredEvent>, earlier: readonly BatchItemAnswer[]): BatchItemAnswer {
  const base = { index, ...aboutOf(identity) };
  const stored = identity ? events.get(identity.digest) : undefined;
  const now = stored ? (withSequencing(stored.answer as Outcome, stored) as { receipt: IngressReceipt }).receipt : undefined;
  switch (k.k) {
    case 'I': {
      // The same body reads the same: the item's problem is read again rather than kept.
      const problem = 'invalid' in item ? problemOf(item.invalid) : { status: 422, code: 'INVALID_REQUEST', detail: `Event ${index} was refused.`, extra: {} };
      return { ...base, result: 'REFUSED', status: problem.status, problem };
    }
    case 'R':
      return { ...base, result: 'REFUSED', status: k.problem.status, problem: k.problem };
    case 'D':
      return duplicateAnswer(earlier[k.of], index);
    case 'S':
      return { ...base, result: 'ALREADY_STORED', status: 202, receipt: now ?? k.receipt };
    case 'A':
      return { ...base, result: 'ACCEPTED', status: 202, receipt: now ?? receiptOf(first, (item as Extract<BatchItem, { event: unknown }>).event, k.effect) };
  }
}

/** One line for the delivery (not one per event), and a warning for each event id reused with other content. */
function notesOf(delivery: Delivery, answers: BatchItemAnswer[]): Note[] {
  const count = (result: BatchResult) => answers.filter((a) => a.result === result).length;
  const fields = { sourceId: delivery.sourceId, webhookId: delivery.webhookId, events: answers.length, accepted: count('ACCEPTED'), alreadyStored: count('ALREADY_STORED'), refused: count('REFUSED'), notStored: count('NOT_STORED') };
  const notes: Note[] = [{ level: 'info', message: 'batch received', fields }];
  for (const a of answers) if (a.problem?.code === 'EVENT_ID_REUSED') notes.push({ level: 'warn', message: 'event id reused with other content: refused', fields: { sourceId: delivery.sourceId, webhookId: delivery.webhookId, index: a.index, eventSource: a.eventSource, eventId: a.eventId } });
  return notes;
}
