import { createHash } from 'node:crypto';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { eventContract } from '../../functions/contract/ingress';
import { cloudEventEnvelope } from '../../functions/contract/events';
import { admissionOfKind } from '../../functions/domain/kinds/admission';
import { COMMERCIAL_PROOF_KIND } from '../../functions/domain/kinds/commercial-proof';
import { objectTransitionRefusal, OBJECT_AUTHORITY_OBSERVED, OBJECT_KIND, OBJECT_STATE_CHANGED } from '../../functions/domain/kinds/object';
import { LIFECYCLE_STATES } from '../../functions/domain/lifecycle';
import type { RecordToStore } from '../../functions/store/ports/records';
import { buildEvent, senderOf } from '../ingress/emit';
import { checkRecord } from '../loader/check';
import type { RecordSource } from '../loader/source';
import { EXAMPLE_INSTANT } from './events';

/**
 * `ingress.examples` of /developers/sandbox/examples.json: for each receiver, an unsigned canonical
 * event about a demo record, the URL to POST it to, the source whose key signs it, and what the
 * read path shows once the event is integrated (`expect`).
 *
 * An event is integrated only if it fits the record as the service holds it: dated after its
 * latest entry (an earlier one is history, or before the record's first state and set aside), a
 * state change from the state the object is in to one its lifecycle allows, an observation of the
 * state it is in. So the examples are derived from the records being loaded when those are known
 * where the documents are published (the local service, a completed `npm run load` into the
 * catalogue bucket, the assembly's demo through it, `npm run build -- --records FILE`): each dated one second after its record's latest entry (or at the instant given,
 * when later), with the record's current state. When no records are known (a deployment's build),
 * each example is a template: dated at the fixed EXAMPLE_INSTANT, with `fill` naming every field to
 * set before it is sent; sent as it is, it is accepted and then set aside.
 */
export interface IngressExample {
  name: string;
  title: string;
  method: 'POST';
  url: string;
  sourceId: string;
  body: Record<string, unknown>;
  expect: { reference: string; path: string; field: string; value: string };
  /** Only on a template: the body fields to set before sending it, and to what. */
  fill?: Array<{ field: string; with: string }>;
}

/** What an example needs to know of the record it is about. */
interface RecordFacts {
  /** Its latest entry's instant. */
  latestAt: string;
  /** The state it is in (its kind's reading of its latest view), null when it has none. */
  state: string | null;
  /** Its latest view, for kind-specific fields (an object's type). */
  view: Record<string, unknown>;
}

function factsOf(record: RecordToStore): RecordFacts {
  const latest = record.entries.reduce((newest, e) => (e.at > newest.at ? e : newest), record.entries[0]);
  const view = (latest.view ?? {}) as Record<string, unknown>;
  return { latestAt: latest.at, state: admissionOfKind(record.kind)?.stateOf(view) ?? null, view };
}

function eventId(type: string, subject: string, at: string): string {
  const hex = createHash('sha256').update(`ingress\n${type}\n${subject}\n${at}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** One second after `latestAt`, or `notBefore` when that is later: an instant after every entry of the record. */
function instantAfter(latestAt: string, notBefore: string | undefined): string {
  const after = new Date(new Date(latestAt).getTime() + 1000).toISOString().replace(/\.000Z$/, 'Z');
  return notBefore !== undefined && new Date(notBefore).getTime() > new Date(after).getTime() ? notBefore : after;
}

/** A state the object may move to from `from`: RETURNED when allowed (the example's story), else the first the lifecycle allows; null after a terminal state. */
function nextStateOf(from: string): string | null {
  const candidates = ['RETURNED', ...Object.keys(LIFECYCLE_STATES)];
  return candidates.find((to) => objectTransitionRefusal(from, to) === null) ?? null;
}

const FILL_TIME = { field: 'body.time', with: "an instant after the record's latest entry (and not in the future)" };
const FILL_ID = { field: 'body.id', with: 'a new identifier (an event is its source and id: the same id is the same event)' };

interface ExampleSpec {
  name: string;
  title: string;
  type: string;
  /** The kind of record it is about. */
  kind: string;
  /** The demo record it is about (and a template's subject); with other records, the first of its kind that fits. */
  preferred: string;
  /** Whether a record of its kind can be the subject (a state change needs a state some other may follow). */
  fits(facts: RecordFacts): boolean;
  /** The payload fields and the expected reading, from the record (null: the template's values). */
  derive(reference: string, facts: RecordFacts | null, at: string): { fields: Record<string, string>; expect: Omit<IngressExample['expect'], 'reference'>; fill: IngressExample['fill'] };
}

const SPECS: readonly ExampleSpec[] = [
  {
    name: 'lifecycle-state-changed',
    title: 'An object changes state (lifecycle feed)',
    type: OBJECT_STATE_CHANGED,
    kind: OBJECT_KIND,
    preferred: DEMO_OBJECTS.current,
    fits: (facts) => facts.state !== null && nextStateOf(facts.state) !== null,
    derive(reference, facts) {
      const previousState = facts?.state ?? 'DELIVERED';
      const state = nextStateOf(previousState)!;
      const objectType = String(facts?.view.objectType ?? 'ORDER');
      return {
        fields: { objectType, previousState, state },
        expect: { path: `/v1/objects/${reference}`, field: 'current.state', value: state },
        fill: [
          FILL_TIME,
          { field: 'body.data.changedAt', with: 'the same instant as body.time' },
          FILL_ID,
          { field: 'body.data.previousState', with: "the object's current state (current.state of its read)" },
          { field: 'body.data.state', with: 'a state its lifecycle allows after it (docs/semantics.md#lifecycle-states); expect.value with it' },
        ],
      };
    },
  },
  {
    name: 'lifecycle-authority-observed',
    title: 'The authority confirms an object as it stands (keeps it fresh)',
    type: OBJECT_AUTHORITY_OBSERVED,
    kind: OBJECT_KIND,
    preferred: DEMO_OBJECTS.stale,
    fits: (facts) => facts.state !== null,
    derive(reference, facts, at) {
      return {
        fields: { objectType: String(facts?.view.objectType ?? 'WARRANTY'), state: facts?.state ?? 'ACTIVE' },
        expect: { path: `/v1/objects/${reference}`, field: 'current.observedAt', value: new Date(at).toISOString() },
        fill: [
          FILL_TIME,
          { field: 'body.data.observedAt', with: 'the same instant as body.time; expect.value with it' },
          FILL_ID,
          { field: 'body.data.state', with: "the object's current state (current.state of its read)" },
        ],
      };
    },
  },
  {
    name: 'webhook-source-snapshot',
    title: 'The commerce platform reports a snapshot of the source behind a proof',
    type: 'svc.commercial-proof.source-snapshot.v1',
    kind: COMMERCIAL_PROOF_KIND,
    preferred: DEMO_PROOFS.unknown,
    fits: () => true,
    derive(reference) {
      return {
        fields: { sourceState: 'DELIVERED' },
        expect: { path: `/v1/commercial-proofs/${reference}`, field: 'verification.currentSourceStatus.state', value: 'DELIVERED' },
        fill: [FILL_TIME, { field: 'body.data.observedAt', with: 'the same instant as body.time' }, FILL_ID],
      };
    },
  },
];

export const INGRESS_STATEMENT =
  'Each body is sent as it is, signed with Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) by the key of its sourceId; ' +
  'locally the development keys of fixtures/ingress-dev-secrets.json sign them (npm run emit does it for you). An accepted event is answered 202 once stored; ' +
  'the same body sent again, under any webhook-id, is answered as its first delivery and changes nothing (an event is its CloudEvents source and id); ' +
  '`expect` is what the read path shows once the sequencer has integrated it. Where the records were known when this document was published, each event is ' +
  "dated after its record's latest entry and states its current state, so it is integrated as it is (once: afterwards the record has moved on). " +
  'An example with `fill` is a template, published before any record was known: set the fields it names first; sent as it is, it is accepted and then set aside.';

/** Where the examples come from: the records being loaded (derived examples), or nothing known (templates). */
export interface IngressExampleSource {
  /** The records being loaded, as the loader reads them (validateRecords); none: templates. */
  records?: readonly RecordToStore[];
  /** With records, the earliest instant an example may carry (the local service's start); without, the templates' instant (default EXAMPLE_INSTANT). An example no record fits stays a template. */
  at?: string;
}

export function buildIngressExamples(source: IngressExampleSource): IngressExample[] {
  const records = source.records ?? [];
  return SPECS.map((spec) => {
    const candidates = records.filter((r) => r.kind === spec.kind).sort((a, b) => Number(b.reference === spec.preferred) - Number(a.reference === spec.preferred));
    const record = candidates.find((r) => spec.fits(factsOf(r)));
    const facts = record ? factsOf(record) : null;
    const reference = record?.reference ?? spec.preferred;
    const when = facts ? instantAfter(facts.latestAt, source.at) : (source.at ?? EXAMPLE_INSTANT);
    const { fields, expect, fill } = spec.derive(reference, facts, when);
    const contract = eventContract(spec.type)!;
    const { sourceId, path } = senderOf(spec.type);
    const body = cloudEventEnvelope(contract).parse(buildEvent(spec.type, reference, fields, when, eventId(spec.type, reference, when))) as Record<string, unknown>;
    const example: IngressExample = { name: spec.name, title: facts ? spec.title : `Template: ${spec.title}`, method: 'POST', url: path, sourceId, body, expect: { reference, ...expect } };
    return facts ? example : { ...example, fill };
  });
}

/** Records kept per kind while a file is read for its examples: enough to find one that fits, whatever the file's size. */
const RECORDS_KEPT_PER_KIND = 100;

/**
 * The records of a records file (as `npm run load` reads it) an example may be derived from: the
 * demo references and the first records of each kind an example is about, read one at a time.
 * A record the loader would refuse is skipped here (the load reports it).
 */
export async function ingressRecordsOf(source: RecordSource): Promise<RecordToStore[]> {
  const kept: RecordToStore[] = [];
  const perKind = new Map<string, number>();
  const preferred = new Set(SPECS.map((spec) => spec.preferred));
  const kinds = new Set(SPECS.map((spec) => spec.kind));
  for await (const raw of source.records(() => {})) {
    const checked = checkRecord(raw);
    if (!checked.record) continue;
    const record = checked.record.record;
    const count = perKind.get(record.kind) ?? 0;
    if (!preferred.has(record.reference) && (!kinds.has(record.kind) || count >= RECORDS_KEPT_PER_KIND)) continue;
    perKind.set(record.kind, count + 1);
    kept.push(record);
  }
  return kept;
}
