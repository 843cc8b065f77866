import { createHash } from 'node:crypto';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { eventContract } from '../../functions/contract/ingress';
import { cloudEventEnvelope } from '../../functions/contract/events';
import { buildEvent, senderOf } from '../ingress/emit';

/**
 * `ingress.examples` of /developers/sandbox/examples.json: for each receiver, unsigned canonical
 * events about demo records, the URL to POST them to, the source whose key signs them, and what
 * the read path shows once the event is integrated (`expect`). Built for one instant: the fixed
 * EXAMPLE_INSTANT in a deployment's documents, the start of `npm start` for the local service (so
 * the events are newer than the demo data's newest entries and advance the records).
 */
export interface IngressExample {
  name: string;
  title: string;
  method: 'POST';
  url: string;
  sourceId: string;
  body: Record<string, unknown>;
  expect: { reference: string; path: string; field: string; value: string };
}

function eventId(type: string, subject: string, at: string): string {
  const hex = createHash('sha256').update(`ingress\n${type}\n${subject}\n${at}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function example(name: string, title: string, type: string, reference: string, fields: Record<string, string>, at: string, expect: Omit<IngressExample['expect'], 'reference'>): IngressExample {
  const contract = eventContract(type)!;
  const { sourceId, path } = senderOf(type);
  const body = cloudEventEnvelope(contract).parse(buildEvent(type, reference, fields, at, eventId(type, reference, at))) as Record<string, unknown>;
  return { name, title, method: 'POST', url: path, sourceId, body, expect: { reference, ...expect } };
}

export const INGRESS_STATEMENT =
  'Each body is sent as it is, signed with Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) by the key of its sourceId; ' +
  'locally the development keys of fixtures/ingress-dev-secrets.json sign them (npm run emit does it for you). An accepted event is answered 202 once stored; ' +
  'the same body sent again, under any webhook-id, is answered as its first delivery and changes nothing (an event is its CloudEvents source and id); ' +
  '`expect` is what the read path shows once the sequencer has integrated it.';

export function buildIngressExamples(at: string): IngressExample[] {
  return [
    example('lifecycle-state-changed', 'An order is returned (lifecycle feed)', 'svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' }, at, {
      path: `/v1/objects/${DEMO_OBJECTS.current}`,
      field: 'current.state',
      value: 'RETURNED',
    }),
    example('lifecycle-authority-observed', 'The authority confirms a warranty as it stands (keeps it fresh)', 'svc.living-object.authority-observed.v1', DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, at, {
      path: `/v1/objects/${DEMO_OBJECTS.stale}`,
      field: 'current.observedAt',
      value: new Date(at).toISOString(),
    }),
    example('webhook-source-snapshot', 'The commerce platform reports a snapshot of the source behind a proof', 'svc.commercial-proof.source-snapshot.v1', DEMO_PROOFS.unknown, { sourceState: 'DELIVERED' }, at, {
      path: `/v1/commercial-proofs/${DEMO_PROOFS.unknown}`,
      field: 'verification.currentSourceStatus.state',
      value: 'DELIVERED',
    }),
  ];
}
