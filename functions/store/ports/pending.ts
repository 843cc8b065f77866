/**
 * The pending store: what the receivers were sent (docs/ingress.md#exactly-once-per-event,
 * #idempotency-and-durability, docs/ledger.md#storage-ports). Two kinds of things, each claimed once:
 *  - an event, under its identity (its sender and its CloudEvents source and id): stored by the
 *    delivery that claims it, waiting for the sequencer until the sequencer settles it;
 *  - a delivery, under its sender and webhook-id: the answer it was given (a refusal), or the
 *    event it carried.
 *
 * Guarantees every implementation keeps (test/integration/store-ports.test.ts):
 *  - claim and refuse are conditional writes: of any number of concurrent calls for the same
 *    identity (or webhook-id), exactly one stores; every other one gets what that one stored.
 *    Both are durable when they resolve, across restarts and any number of processes.
 *  - lookUp is strongly consistent: it sees every claim, note and refusal that resolved before it
 *    was called; with a delivery that carried an event, it returns that event too.
 *  - noteDelivery records that a delivery carried a stored event, unless its webhook-id already
 *    answered another body or already names an event; a refusal of the same body stored by a
 *    concurrent copy is replaced (the event is stored: that is the answer its webhook-id keeps).
 *  - claimNoted is claim and noteDelivery (naming the event under the claimed identity) sent
 *    together, one round trip where the two take two: it resolves when both are durable, and throws
 *    StoreUnavailable if either failed. Either may then have stored without the other. A note
 *    whose event is not stored (its claim failed) is one lookUp returns with `event: null`: that
 *    delivery was answered nothing (503), so it is as if unanswered, and a claimNoted given that
 *    note's eventKey as `unclaimed` replaces it, whatever body it noted.
 *  - listWaiting lists the events waiting for the sequencer, oldest received first; it may lag the
 *    claims of the last second and may still list an event settled in the last second
 *    (eventually consistent: readEvents tells).
 *  - readEvents is strongly consistent and answers, in the order asked, the events still to be
 *    integrated (waiting or set aside): an unknown key is left out, and so is an event integrated
 *    (what is kept of it is the claim of its identity, for good: lookUp reads it). settle is durable
 *    when it resolves, an event settled is listed no more, and settling again with the same outcome
 *    changes nothing.
 *  - lookUpBatch is lookUp for a delivery carrying many events (CloudEvents' batch format): what is
 *    stored for its webhook-id and for each identity, in the order given, strongly consistent,
 *    read together (not one after another). answerOnce stores a delivery's answer as refuse does
 *    (compare-and-set), for a delivery whose events are stored on their own (a batch's).
 *  - Every method may be called concurrently. A store that does not answer throws StoreUnavailable.
 */
export interface PendingStore extends ReceivedEvents, WaitingEvents {}

/** The receivers' part of the pending store (what a receiver bundles). */
export interface ReceivedEvents {
  lookUp(delivery: { sourceId: string; webhookId: string }, identityDigest: string): Promise<{ event: StoredEvent | null; delivery: StoredDelivery | null }>;
  claim(event: NewEvent): Promise<{ claimed: true; key: string } | { claimed: false; stored: StoredEvent }>;
  noteDelivery(delivery: DeliveryAnswer, eventKey: string): Promise<void>;
  claimNoted(event: NewEvent, unclaimed: string | null): Promise<{ claimed: true; key: string } | { claimed: false; stored: StoredEvent }>;
  refuse(delivery: DeliveryAnswer): Promise<{ stored: true } | { stored: false; earlier: StoredDelivery }>;
  lookUpBatch(delivery: { sourceId: string; webhookId: string }, identityDigests: readonly string[]): Promise<{ delivery: StoredDelivery | null; events: (StoredEvent | null)[] }>;
  answerOnce(delivery: DeliveryAnswer): Promise<{ stored: true } | { stored: false; earlier: StoredDelivery }>;
}

/** The sequencer's part of the pending store. */
export interface WaitingEvents {
  listWaiting(limit: number): Promise<string[]>;
  /** When the event that has waited longest was received, or null when none waits (eventually consistent, as listWaiting). */
  oldestWaitingSince(): Promise<string | null>;
  readEvents(keys: readonly string[]): Promise<WaitingEvent[]>;
  settle(settlements: readonly Settlement[]): Promise<void>;
}

/** One verified delivery and the answer it was given: who sent it, its webhook-id, the digest of its raw body, when. */
export interface DeliveryAnswer {
  sourceId: string;
  webhookId: string;
  bodySha256: string;
  receivedAt: string;
  status: number;
  answer: unknown;
}

/** An accepted event, as the delivery that claims it stores it. */
export interface NewEvent extends DeliveryAnswer {
  identity: { source: string; id: string; digest: string; contentSha256: string };
  /** The raw verified body as received, and what the receiver read from it and decided. */
  event: EventBody;
}

export interface EventBody {
  raw: string;
  type: string;
  reference: string;
  at: string;
  effect: string;
}

export type Sequencing = 'PENDING' | 'SEQUENCED' | 'SET_ASIDE';
export type SequencingOutcome = { sequenced: true; version: number | null } | { sequenced: false; reason: string };

/** An event as the receivers read it back. */
export interface StoredEvent {
  key: string;
  /** SHA-256 of the event's canonical JSON: tells a replay from another event under a used identity. */
  contentSha256: string;
  status: number;
  /** What its first delivery was answered. */
  answer: unknown;
  sequencing: Sequencing;
  sequencedAt: string | null;
  outcome: SequencingOutcome | null;
}

/** A delivery as the receivers read it back: its answer, or the event it carried. */
export interface StoredDelivery {
  status: number;
  answer: unknown;
  bodySha256: string;
  /** The event it carried (its key), when that event is stored. */
  eventKey: string | null;
  /** With eventKey: that event, when it could be read with the delivery (lookUp). */
  event?: StoredEvent | null;
}

/** An event waiting for the sequencer, as it reads it. */
export interface WaitingEvent extends NewEvent {
  key: string;
  sequencing: Sequencing;
}

/** What the sequencer did with an event: integrated it (the version it made), or set it aside (why). */
export interface Settlement {
  event: WaitingEvent;
  outcome: SequencingOutcome;
  at: string;
}
