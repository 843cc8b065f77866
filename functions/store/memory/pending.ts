import { eventPk, pendingPk } from '../layout';
import type { DeliveryAnswer, NewEvent, PendingStore, Sequencing, SequencingOutcome, Settlement, StoredDelivery, StoredEvent, WaitingEvent } from '../ports/pending';

interface KeptEvent {
  event: NewEvent;
  sequencing: Sequencing;
  sequencedAt: string | null;
  outcome: SequencingOutcome | null;
}

interface KeptDelivery {
  answer: DeliveryAnswer;
  eventKey: string | null;
}

const copy = <T>(value: T): T => structuredClone(value);

/**
 * The pending store in this process's memory: the same guarantees as the table (ports/pending.ts).
 * A claim and a refusal are decided synchronously, so of concurrent calls exactly one stores.
 */
export class MemoryPendingStore implements PendingStore {
  private readonly events = new Map<string, KeptEvent>();
  private readonly deliveries = new Map<string, KeptDelivery>();

  private storedEvent(key: string): StoredEvent | null {
    const kept = this.events.get(key);
    if (!kept) return null;
    return { key, contentSha256: kept.event.identity.contentSha256, status: kept.event.status, answer: copy(kept.event.answer), sequencing: kept.sequencing, sequencedAt: kept.sequencedAt, outcome: copy(kept.outcome) };
  }

  private storedDelivery(kept: KeptDelivery): StoredDelivery {
    return { status: kept.answer.status, answer: copy(kept.answer.answer), bodySha256: kept.answer.bodySha256, eventKey: kept.eventKey };
  }

  async lookUp(delivery: { sourceId: string; webhookId: string }, identityDigest: string) {
    const event = this.storedEvent(eventPk(delivery.sourceId, identityDigest));
    const kept = this.deliveries.get(pendingPk(delivery.sourceId, delivery.webhookId));
    const stored = kept ? this.storedDelivery(kept) : null;
    if (stored?.eventKey) stored.event = this.storedEvent(stored.eventKey);
    return { event, delivery: stored };
  }

  async claim(event: NewEvent) {
    const key = eventPk(event.sourceId, event.identity.digest);
    const stored = this.storedEvent(key);
    if (stored) return { claimed: false as const, stored };
    this.events.set(key, { event: copy(event), sequencing: 'PENDING', sequencedAt: null, outcome: null });
    return { claimed: true as const, key };
  }

  async noteDelivery(delivery: DeliveryAnswer, eventKey: string, unclaimed: string | null = null): Promise<void> {
    const key = pendingPk(delivery.sourceId, delivery.webhookId);
    const kept = this.deliveries.get(key);
    // Unless its webhook-id answered another body, or already names an event (202), other than the unclaimed one given.
    if (kept && (kept.answer.bodySha256 !== delivery.bodySha256 || kept.answer.status === 202) && (unclaimed === null || kept.eventKey !== unclaimed)) return;
    this.deliveries.set(key, { answer: copy(delivery), eventKey });
  }

  async claimNoted(event: NewEvent, unclaimed: string | null) {
    const claim = await this.claim(event);
    await this.noteDelivery(event, eventPk(event.sourceId, event.identity.digest), unclaimed);
    return claim;
  }

  async refuse(delivery: DeliveryAnswer) {
    const key = pendingPk(delivery.sourceId, delivery.webhookId);
    const kept = this.deliveries.get(key);
    if (kept) return { stored: false as const, earlier: this.storedDelivery(kept) };
    this.deliveries.set(key, { answer: copy(delivery), eventKey: null });
    return { stored: true as const };
  }

  async lookUpBatch(delivery: { sourceId: string; webhookId: string }, identityDigests: readonly string[]) {
    const kept = this.deliveries.get(pendingPk(delivery.sourceId, delivery.webhookId));
    return { delivery: kept ? this.storedDelivery(kept) : null, events: identityDigests.map((digest) => this.storedEvent(eventPk(delivery.sourceId, digest))) };
  }

  async answerOnce(delivery: DeliveryAnswer) {
    return this.refuse(delivery);
  }

  private waiting(): [string, KeptEvent][] {
    return [...this.events].filter(([, e]) => e.sequencing === 'PENDING').sort(([ak, a], [bk, b]) => (a.event.receivedAt < b.event.receivedAt ? -1 : a.event.receivedAt > b.event.receivedAt ? 1 : ak < bk ? -1 : 1));
  }

  async listWaiting(limit: number): Promise<string[]> {
    return this.waiting().slice(0, limit).map(([key]) => key);
  }

  async oldestWaitingSince(): Promise<string | null> {
    return this.waiting()[0]?.[1].event.receivedAt ?? null;
  }

  async readEvents(keys: readonly string[]): Promise<WaitingEvent[]> {
    return keys.flatMap((key) => {
      const kept = this.events.get(key);
      return kept && kept.sequencing !== 'SEQUENCED' ? [{ ...copy(kept.event), key, sequencing: kept.sequencing }] : [];
    });
  }

  async settle(settlements: readonly Settlement[]): Promise<void> {
    // As the table does: the event written again whole, with what the sequencer did.
    for (const { event, outcome, at } of settlements) {
      const { key, sequencing: _sequencing, ...stored } = copy(event);
      this.events.set(key, { event: stored, sequencing: outcome.sequenced ? 'SEQUENCED' : 'SET_ASIDE', sequencedAt: at, outcome: copy(outcome) });
    }
  }
}
