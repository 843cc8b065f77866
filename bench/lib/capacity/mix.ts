/**
 * The capacity bench's workload: R living objects of their own beside the demo data, and a mix of
 * E signed deliveries over them, a share of which goes to a few hot references (one busy object
 * of the demo, one object of the mix, one commercial proof of the demo). Deterministic for a seed.
 *
 * Every delivery is one the receivers accept and the sequencer integrates: an object's state
 * changes cycle through good-standing states (each different from the state the service holds when
 * it arrives, which is what the receivers check), and an authority observation confirms the state
 * held, so it is sent only while no change of the same mix is waiting for that object. A
 * commercial proof receives source snapshots. No credential events: a status change reconciles
 * status lists, a path of its own (docs/capacity.md says what the mix leaves out).
 */
import { DEMO_OBJECTS } from '../../../fixtures/demo';
import { DEMO_PROOFS } from '../../../fixtures/demo-proofs';
import { buildEvent, senderOf } from '../../../lib/ingress/emit';
import { seeded } from '../synthetic-records';

export const STATE_CHANGED = 'svc.living-object.state-changed.v1';
export const OBSERVED = 'svc.living-object.authority-observed.v1';
export const SNAPSHOT = 'svc.commercial-proof.source-snapshot.v1';

/** States of the good-standing lifecycle class (functions/domain/lifecycle.ts): any may follow any other. */
const GOOD_STANDING = ['PLACED', 'CONFIRMED', 'FULFILLED', 'SHIPPED', 'DELIVERED', 'IN_SERVICE', 'ACTIVE', 'VALID'];

const DAY = 86_400_000;

export const mixReference = (n: number): string => `CAP-${String(n).padStart(6, '0')}`;
/** The busy object of the mix itself, beside the demo's. */
export const HOT_MIX_OBJECT = 'CAP-HOT-000001';
/** An object of the mix no delivery ever names: what most references look like (a short history). */
export const QUIET_OBJECT = 'CAP-QUIET-000001';

/** The hot references, busiest first: the object whose reads are measured, another object, a commercial proof. */
export const HOT_REFERENCES = [DEMO_OBJECTS.current, HOT_MIX_OBJECT, DEMO_PROOFS.current] as const;

/** The object records of the mix (loader document records): an order each, placed and confirmed, observed since; the hot one and a quiet one besides. */
export function mixRecords(references: number, anchor: Date): Record<string, unknown>[] {
  const at = (offset: number) => new Date(anchor.getTime() + offset).toISOString();
  const record = (reference: string, n: number) => ({
    kind: 'OBJECT',
    reference,
    objectType: 'ORDER',
    businessReference: `ORDER C-${n}`,
    title: `Order C-${n}`,
    authority: 'Service platform',
    freshnessSeconds: 3600,
    history: [
      { type: 'STATE_CHANGED', at: at(-3 * DAY), state: 'PLACED' },
      { type: 'STATE_CHANGED', at: at(-2 * DAY), state: 'CONFIRMED' },
      { type: 'AUTHORITY_OBSERVED', at: at(-1 * DAY), source: 'COMMERCE_PLATFORM_SYNC' },
    ],
  });
  return [record(HOT_MIX_OBJECT, 0), record(QUIET_OBJECT, -1), ...Array.from({ length: references }, (_, i) => record(mixReference(i), i + 1))];
}

export interface Delivery {
  type: string;
  reference: string;
  sourceId: string;
  path: string;
  body: string;
  /** The body's media type: one event (application/cloudevents+json) unless it says a batch. */
  contentType?: string;
}

/** Deliveries of one source as one batch delivery (CloudEvents' JSON batch format): the events' bodies in one array. */
export function asBatch(deliveries: readonly Delivery[]): Delivery {
  const [first] = deliveries;
  if (deliveries.some((d) => d.sourceId !== first.sourceId)) throw new Error('a batch holds the events of one source');
  return { ...first, reference: `${deliveries.length} events`, body: `[${deliveries.map((d) => d.body).join(',')}]`, contentType: 'application/cloudevents-batch+json' };
}

/**
 * What the service holds for each object of the mix as deliveries are integrated: a mix made after
 * another one was integrated continues from it (its changes differ from the state now held).
 */
export class MixState {
  private readonly states = new Map<string, string>([
    [DEMO_OBJECTS.current, 'DELIVERED'],
    [HOT_MIX_OBJECT, 'CONFIRMED'],
  ]);
  private instant: number;
  /** Every reference a delivery of this mix named so far. */
  readonly named = new Set<string>();

  constructor(
    /** The first event's instant: after every entry the loaded records hold, before now. */
    firstAt: Date,
    /** Between two events' instants: every event has an instant of its own. */
    private readonly stepMs = 50,
  ) {
    this.instant = firstAt.getTime();
  }

  stateOf(reference: string): string {
    return this.states.get(reference) ?? 'CONFIRMED';
  }

  /** The instant the next event states; throws when it would lie in the future. */
  nextInstant(): string {
    const at = this.instant;
    this.instant += this.stepMs;
    if (at > Date.now()) throw new Error('the mix ran out of past instants: fewer events, or an earlier first instant');
    return new Date(at).toISOString();
  }

  /**
   * `events` deliveries over `references` objects of the mix and the hot references (which take
   * `hotShare` of them, evenly), in the order of their instants, as the sources send them. The
   * state is advanced as if every one of them is integrated.
   *
   * The receivers check a change against the state integrated when it arrives. With no sequencer
   * running while the mix is sent, that is the state held before the mix: a change must differ
   * from it and from the change before. With a sequencer running meanwhile (`integratedMeanwhile`)
   * it may be any state the mix sent before, so no object is given a state twice in one mix (an
   * object whose states are used up is not chosen again).
   */
  deliveries(options: { events: number; references: number; hotShare: number; seed: number; observationShare?: number; integratedMeanwhile?: boolean }): Delivery[] {
    const random = seeded(options.seed);
    const observationShare = options.observationShare ?? 0.3;
    const heldBefore = new Map<string, string>();
    const sent = new Map<string, Set<string>>();
    const out: Delivery[] = [];
    const choose = (): { reference: string; choices: string[] } => {
      for (;;) {
        const hot = random() < options.hotShare;
        const reference = hot ? HOT_REFERENCES[Math.floor(random() * HOT_REFERENCES.length)] : mixReference(Math.floor(random() * options.references));
        if (reference === DEMO_PROOFS.current) return { reference, choices: [] };
        if (!heldBefore.has(reference)) heldBefore.set(reference, this.stateOf(reference));
        const excluded = options.integratedMeanwhile ? new Set([heldBefore.get(reference)!, ...(sent.get(reference) ?? [])]) : new Set([heldBefore.get(reference)!, this.stateOf(reference)]);
        const choices = GOOD_STANDING.filter((s) => !excluded.has(s));
        if (choices.length > 0) return { reference, choices };
      }
    };
    for (let i = 0; i < options.events; i++) {
      const { reference, choices } = choose();
      const at = this.nextInstant();
      let type: string;
      let fields: Record<string, string>;
      if (reference === DEMO_PROOFS.current) {
        type = SNAPSHOT;
        fields = { sourceState: i % 2 ? 'DELIVERED' : 'SHIPPED' };
      } else if (!sent.has(reference) && random() < observationShare) {
        // Nothing of this mix changed it yet: the state held is the one integrated.
        type = OBSERVED;
        fields = { objectType: 'ORDER', state: this.stateOf(reference) };
      } else {
        const state = choices[Math.floor(random() * choices.length)];
        type = STATE_CHANGED;
        fields = { objectType: 'ORDER', previousState: this.stateOf(reference), state };
        this.states.set(reference, state);
        sent.set(reference, new Set([...(sent.get(reference) ?? []), state]));
      }
      const { sourceId, path } = senderOf(type);
      out.push({ type, reference, sourceId, path, body: JSON.stringify(buildEvent(type, reference, fields, at)) });
    }
    for (const d of out) this.named.add(d.reference);
    return out;
  }
}
