import * as z from 'zod';
import { LIFECYCLE_STATES, type LifecycleState } from './lifecycle';
import type { ChannelKey } from './channels';
import { Instant, Reference } from './schemas/common';
import { DISPOSITIONS } from './schemas/objects';

/**
 * The canonical lifecycle and webhook event contracts. /developers/asyncapi.json and
 * /developers/events/example.json are generated from this list, nothing else.
 *
 * Every event travels as a CloudEvents 1.0 envelope (structured mode). A payload carries
 * references, states, instants and public links only: the payload schemas are closed
 * (no additional properties), so no personal or payment data can ride along unnoticed.
 */
export const CLOUDEVENTS_SPEC_VERSION = '1.0';
export const EVENT_CONTENT_TYPE = 'application/cloudevents+json';

const ObjectState = z.enum(Object.keys(LIFECYCLE_STATES) as [LifecycleState, ...LifecycleState[]]);
const Disposition = z.enum(DISPOSITIONS);
const StatusWord = z.string().regex(/^[A-Z][A-Z0-9_]{1,63}$/);
const PublicPath = z
  .string()
  .regex(/^\/[A-Za-z0-9._:~\-/{}]*$/)
  .describe('Path below the service base address where the current state can be read.');

const NoPersonalData = z
  .object({ containsCustomerPii: z.literal(false), containsPaymentAccountData: z.literal(false) })
  .strict()
  .describe('The payload never carries customer personal data or payment account data.');

export const ObjectStateChangedData = z
  .object({
    reference: Reference,
    objectType: z.string().regex(/^[A-Z][A-Z0-9_]{1,63}$/),
    previousState: ObjectState.nullable(),
    state: ObjectState,
    changedAt: Instant,
    recordVersion: z.number().int().min(1),
    resolveUrl: PublicPath,
    disclosure: NoPersonalData,
  })
  .strict();

export const CommercialProofSourceModifiedData = z
  .object({
    reference: Reference,
    previousDisposition: Disposition,
    disposition: Disposition,
    sourceState: StatusWord,
    observedAt: Instant,
    proofUrl: PublicPath,
    disclosure: NoPersonalData,
  })
  .strict();

export const CredentialStatusChangedData = z
  .object({
    claimId: Reference,
    previousStatus: StatusWord.nullable(),
    status: StatusWord,
    changedAt: Instant,
    verifyUrl: PublicPath,
    disclosure: NoPersonalData,
  })
  .strict();

/**
 * The authority (the service platform) confirms the state of a living object as it stands, without
 * a change. Observations are what keep `fresh` true (docs/semantics.md): the record's last
 * authority observation moves to `observedAt`. `state` is the state the authority sees; it must be
 * the state the service holds (a change is an ObjectStateChanged event, never an observation).
 */
export const AuthorityObservedData = z
  .object({
    reference: Reference,
    objectType: z.string().regex(/^[A-Z][A-Z0-9_]{1,63}$/),
    state: ObjectState,
    observedAt: Instant,
    resolveUrl: PublicPath,
    disclosure: NoPersonalData,
  })
  .strict();

/**
 * One synchronization snapshot of the commerce source behind a commercial proof, as the external
 * commerce platform observed it: the source record's digest and state at `observedAt`. The
 * platform identifies its record only by the proof reference; never by an account, a customer or
 * a payment instrument.
 */
export const CommercialSourceSnapshotData = z
  .object({
    reference: Reference,
    sourceState: StatusWord,
    digest: z.string().regex(/^sha256:[0-9a-f]{64}$/).describe('Digest of the source record at the platform (sha256:<64 hex>).'),
    observedAt: Instant,
    proofUrl: PublicPath,
    disclosure: NoPersonalData,
  })
  .strict();

export interface EventContract<Payload extends z.ZodType = z.ZodType> {
  /** CloudEvents `type` (versioned: a breaking payload change is a new type). */
  type: string;
  /** AsyncAPI message and channel name. */
  name: string;
  title: string;
  summary: string;
  /** CloudEvents `source`: the collection the subject belongs to. */
  source: string;
  /** What CloudEvents `subject` carries. */
  subject: string;
  /** Channels that carry the event (their readiness is the delivery readiness). */
  channels: readonly ChannelKey[];
  payload: Payload;
}

export const EVENT_CONTRACTS = [
  {
    type: 'svc.living-object.state-changed.v1',
    name: 'ObjectStateChanged',
    title: 'Living object state changed',
    summary: 'The authoritative state of a living object changed (for example DELIVERED to RETURNED).',
    source: '/v1/objects',
    subject: 'The object reference.',
    channels: ['WEBHOOK', 'IOT_EVENT'],
    payload: ObjectStateChangedData,
  },
  {
    type: 'svc.commercial-proof.source-modified.v1',
    name: 'CommercialProofSourceModified',
    title: 'Commercial proof source modified',
    summary: 'The commerce source behind a commercial proof changed after the proof was made; the proof now describes an earlier version.',
    source: '/v1/commercial-proofs',
    subject: 'The commercial proof reference.',
    channels: ['WEBHOOK'],
    payload: CommercialProofSourceModifiedData,
  },
  {
    type: 'svc.credential.status-changed.v1',
    name: 'CredentialStatusChanged',
    title: 'Credential status changed',
    summary: 'The public verification status of a credential changed (for example ACTIVE to REVOKED).',
    source: '/v1/credentials',
    subject: 'The credential claim identifier.',
    channels: ['WEBHOOK'],
    payload: CredentialStatusChangedData,
  },
  {
    type: 'svc.living-object.authority-observed.v1',
    name: 'AuthorityObserved',
    title: 'Authority observed a living object',
    summary: 'The authority confirmed the current state of a living object without a change; this keeps the record fresh.',
    source: '/v1/objects',
    subject: 'The object reference.',
    channels: ['WEBHOOK', 'IOT_EVENT'],
    payload: AuthorityObservedData,
  },
  {
    type: 'svc.commercial-proof.source-snapshot.v1',
    name: 'CommercialSourceSnapshot',
    title: 'Commercial proof source snapshot',
    summary: 'The external commerce platform reports the digest and state of the source record behind a commercial proof, as observed at an instant.',
    source: '/v1/commercial-proofs',
    subject: 'The commercial proof reference.',
    channels: ['WEBHOOK'],
    payload: CommercialSourceSnapshotData,
  },
] as const satisfies readonly EventContract[];

export type EventType = (typeof EVENT_CONTRACTS)[number]['type'];

/** The CloudEvents 1.0 structured-mode envelope every event uses (attributes per the CloudEvents spec). */
export function cloudEventEnvelope<Payload extends z.ZodType>(contract: EventContract<Payload>) {
  return z
    .object({
      specversion: z.literal(CLOUDEVENTS_SPEC_VERSION),
      id: z.string().min(1).max(128),
      source: z.literal(contract.source),
      type: z.literal(contract.type),
      subject: z.string().min(1).max(180),
      time: Instant,
      datacontenttype: z.literal('application/json'),
      data: contract.payload,
    })
    .strict();
}

/** What the envelope of an event with this payload schema outputs: the type of its generated body plan (functions/generated/bodies.ts). */
export type CloudEventEnvelope<Payload extends z.ZodType> = z.output<ReturnType<typeof cloudEventEnvelope<Payload>>>;
