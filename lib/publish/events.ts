import { createHash } from 'node:crypto';
import * as z from 'zod';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { CHANNELS } from '../../functions/contract/channels';
import {
  CLOUDEVENTS_SPEC_VERSION,
  cloudEventEnvelope,
  EVENT_CONTENT_TYPE,
  type EventContract,
} from '../../functions/contract/events';
import { INGRESS_BATCH_MAX_BODY_BYTES, INGRESS_BATCH_MAX_EVENTS, INGRESS_BATCH_MEDIA_TYPE } from '../../functions/contract/ingress-values';
import { INGRESS_SOURCES } from '../../functions/contract/ingress';
import { CONTRACT_VERSION, SERVICE_NAME } from '../../functions/contract/service';
import type { PublishSources } from './sources';

type Json = Record<string, any>;

/** Examples use one fixed instant, so the published examples never change between builds. */
export const EXAMPLE_INSTANT = '2026-01-15T09:30:00Z';

/** Payload examples about demo records that exist, keyed by event type. */
export function examplePayloads(_sources: PublishSources): Record<string, unknown> {
  const proof = DEMO_PROOFS.modified;
  const credential = DEMO_CREDENTIALS.suspended;
  const disclosure = { containsCustomerPii: false, containsPaymentAccountData: false };
  return {
    'svc.living-object.state-changed.v1': {
      reference: DEMO_OBJECTS.revoked,
      objectType: 'ORDER',
      previousState: 'PLACED',
      state: 'CANCELLED',
      changedAt: EXAMPLE_INSTANT,
      recordVersion: 2,
      resolveUrl: `/v1/objects/${DEMO_OBJECTS.revoked}`,
      disclosure,
    },
    'svc.commercial-proof.source-modified.v1': {
      reference: proof,
      previousDisposition: 'CURRENT',
      disposition: 'MODIFIED',
      sourceState: 'RETURNED',
      observedAt: EXAMPLE_INSTANT,
      proofUrl: `/v1/commercial-proofs/${proof}`,
      disclosure,
    },
    'svc.living-object.authority-observed.v1': {
      reference: DEMO_OBJECTS.current,
      objectType: 'ORDER',
      state: 'DELIVERED',
      observedAt: EXAMPLE_INSTANT,
      resolveUrl: `/v1/objects/${DEMO_OBJECTS.current}`,
      disclosure,
    },
    'svc.commercial-proof.source-snapshot.v1': {
      reference: DEMO_PROOFS.current,
      sourceState: 'DELIVERED',
      digest: `sha256:${createHash('sha256').update(DEMO_PROOFS.current).digest('hex')}`,
      observedAt: EXAMPLE_INSTANT,
      proofUrl: `/v1/commercial-proofs/${DEMO_PROOFS.current}`,
      disclosure,
    },
    'svc.credential.status-changed.v1': {
      claimId: credential,
      previousStatus: 'ACTIVE',
      status: 'SUSPENDED',
      changedAt: EXAMPLE_INSTANT,
      verifyUrl: `/v1/credentials/verify/${credential}`,
      disclosure,
    },
  };
}

/** A deterministic event id: the same event always has the same id (UUID-shaped hex of its digest). */
function eventId(type: string, subject: string, time: string): string {
  const hex = createHash('sha256').update(`${type}\n${subject}\n${time}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** One event as a CloudEvent (structured mode), validated against its contract before it is published. */
export function exampleEvent(contract: EventContract, payload: unknown): Json {
  const data = contract.payload.parse(payload) as Json;
  const subject = (data.reference ?? data.claimId) as string;
  const event = {
    specversion: CLOUDEVENTS_SPEC_VERSION,
    id: eventId(contract.type, subject, EXAMPLE_INSTANT),
    source: contract.source,
    type: contract.type,
    subject,
    time: EXAMPLE_INSTANT,
    datacontenttype: 'application/json',
    data,
  };
  return cloudEventEnvelope(contract).parse(event) as Json;
}

export function buildEventExample(sources: PublishSources): Json {
  const [first] = sources.events;
  return exampleEvent(first, examplePayloads(sources)[first.type]);
}

function jsonSchema(schema: z.ZodType): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Json;
  return rest;
}

const RECEIVE_SUMMARY =
  'one CloudEvents 1.0 structured-mode event per POST, signed with Standard Webhooks (v1 HMAC-SHA256 or v1a Ed25519), ' +
  'answered 202 once durably stored, then integrated by the sequencer once per event (its CloudEvents source and id: a delivery of a stored event is answered as its first); ' +
  `or many in one POST (the batch message: CloudEvents' JSON batch format, ${INGRESS_BATCH_MEDIA_TYPE}, at most ${INGRESS_BATCH_MAX_EVENTS} events signed once), ` +
  'answered 200 with each event\'s own result; see docs/ingress.md.';

/**
 * The batch message of a received event type: a JSON array of its events (CloudEvents' JSON batch
 * format), as a receiver takes it, with an example of two events (the second an hour later).
 */
function batchMessage(contract: EventContract, example: Json): Json {
  const time = '2026-01-15T10:30:00Z';
  const data = { ...(example.data as Json) };
  for (const field of ['changedAt', 'observedAt']) if (field in data) data[field] = time;
  const later: Json = { ...example, id: eventId(contract.type, String(example.subject), time), time, data };
  return {
    name: `${contract.name}Batch`,
    title: `${contract.title} (many in one delivery)`,
    summary: `Many ${contract.title.toLowerCase()} events in one delivery: a JSON array of at most ${INGRESS_BATCH_MAX_EVENTS} events, at most ${INGRESS_BATCH_MAX_BODY_BYTES} bytes, signed once (one webhook-id); each event keeps its own identity, rules and answer.`,
    contentType: INGRESS_BATCH_MEDIA_TYPE,
    payload: { type: 'array', maxItems: INGRESS_BATCH_MAX_EVENTS, items: { $ref: `#/components/schemas/${contract.name}Event` } },
    examples: [{ name: `${contract.name}BatchExample`, summary: 'Two events in one delivery.', payload: [example, later] }],
  };
}

/** The HTTP operation of the contract table that receives an event type, and the source that sends it. */
function receiverOf(sources: PublishSources, type: string): { operationId: string; method: string; path: string; sourceId: string } | null {
  const entry = Object.entries(INGRESS_SOURCES).find(([, s]) => (s.accepts as readonly string[]).includes(type));
  if (!entry) return null;
  const [sourceId, source] = entry;
  const path = source.receiver === 'lifecycle' ? '/v1/lifecycle/events' : '/v1/webhooks/{sourceId}';
  const op = sources.operations.find((o) => o.method === 'POST' && o.path === path);
  return op ? { operationId: op.operationId, method: op.method, path: path.replace('{sourceId}', sourceId), sourceId } : null;
}

function deliveryOf(contract: EventContract): string {
  return contract.channels
    .map((key) => {
      const channel = CHANNELS.find((c) => c.key === key)!;
      return `${key} (${channel.readiness})`;
    })
    .join(', ');
}

/** AsyncAPI 3.0 from the canonical event contracts: one channel, one send operation and one message per event type. */
export function buildAsyncApi(sources: PublishSources): Json {
  const examples = examplePayloads(sources);
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  const schemas: Json = {};
  for (const contract of sources.events) {
    const { name } = contract;
    const envelope = jsonSchema(cloudEventEnvelope(contract));
    schemas[`${name}Data`] = jsonSchema(contract.payload);
    schemas[`${name}Event`] = { ...envelope, properties: { ...envelope.properties, data: { $ref: `#/components/schemas/${name}Data` } } };
    messages[name] = {
      name,
      title: contract.title,
      summary: contract.summary,
      contentType: EVENT_CONTENT_TYPE,
      payload: { $ref: `#/components/schemas/${name}Event` },
      examples: [{ name: `${name}Example`, summary: `One ${contract.title.toLowerCase()} event.`, payload: exampleEvent(contract, examples[contract.type]) }],
    };
    channels[name] = {
      address: contract.type,
      title: contract.title,
      description: `${contract.summary} Subject: ${contract.subject} Delivered through ${deliveryOf(contract)}; READY channels have a published contract and deliver nothing yet.`,
      messages: { [name]: { $ref: `#/components/messages/${name}` } },
    };
    operations[`send${name}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${name}` },
      title: `Send ${contract.title.toLowerCase()}`,
      summary: contract.summary,
      messages: [{ $ref: `#/channels/${name}/messages/${name}` }],
    };
    const receiver = receiverOf(sources, contract.type);
    if (receiver) {
      const batch = batchMessage(contract, messages[name].examples[0].payload);
      messages[batch.name] = batch;
      channels[name].messages[batch.name] = { $ref: `#/components/messages/${batch.name}` };
      operations[`receive${name}`] = {
        action: 'receive',
        channel: { $ref: `#/channels/${name}` },
        title: `Receive ${contract.title.toLowerCase()} (${receiver.operationId})`,
        summary: `${receiver.method} ${receiver.path} from source ${receiver.sourceId}: ${RECEIVE_SUMMARY}`,
        messages: [{ $ref: `#/channels/${name}/messages/${name}` }, { $ref: `#/channels/${name}/messages/${batch.name}` }],
        'x-svc-operation-id': receiver.operationId,
      };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Public Trust and Verification Service events',
      version: CONTRACT_VERSION,
      description:
        'Lifecycle and webhook events of the platform, each a CloudEvents 1.0 envelope whose payload carries references, states and instants only: ' +
        'never customer personal data or payment account data. No operation of the HTTP contract emits an event; events follow lifecycle changes ' +
        'of the records the platform holds. Delivery channels are READY: contracts are published, nothing is delivered yet. ' +
        'The receive operations are the HTTP receivers (POST /v1/lifecycle/events, POST /v1/webhooks/{sourceId}) that take these events in.',
      license: { name: 'Apache-2.0' },
      contact: { name: SERVICE_NAME },
    },
    defaultContentType: EVENT_CONTENT_TYPE,
    channels,
    operations,
    components: { schemas, messages },
  };
}
