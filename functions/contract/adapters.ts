import type { ChannelKey } from './channels';
import type { EventType } from './events';
import type { StandardKey } from './standards';

/**
 * Network adapters: how trust state would travel to or from other networks. The manifest
 * (/developers/adapters/v2.json) and the conformance evidence (/developers/network-conformance.json)
 * are generated from this table. Declaring an adapter here activates nothing: activation is an
 * external, gated decision that no metadata can make.
 */
export const ADAPTER_DIRECTIONS = ['OUTBOUND', 'INBOUND'] as const;

export interface AdapterEntry {
  adapterId: string;
  version: string;
  title: string;
  direction: (typeof ADAPTER_DIRECTIONS)[number];
  channel: ChannelKey;
  standards: readonly StandardKey[];
  /** Event types the adapter carries (outbound) or would accept as source lifecycle input (inbound). */
  events: readonly EventType[];
  /** The gate that keeps the adapter inactive until an external decision opens it. */
  gate: string;
}

export const ADAPTERS = [
  {
    adapterId: 'webhook-lifecycle-delivery',
    version: '2.0.0',
    title: 'Signed lifecycle webhooks',
    direction: 'OUTBOUND',
    channel: 'WEBHOOK',
    standards: [],
    events: ['svc.living-object.state-changed.v1', 'svc.commercial-proof.source-modified.v1', 'svc.credential.status-changed.v1'],
    gate: 'Subscriber registration and signing keys are provisioned outside this service.',
  },
  {
    adapterId: 'epcis-event-projection',
    version: '2.0.0',
    title: 'EPCIS 2.x object events from lifecycle changes',
    direction: 'OUTBOUND',
    channel: 'IOT_EVENT',
    standards: ['EPCIS_EVENT_INTEROP'],
    events: ['svc.living-object.state-changed.v1'],
    gate: 'An EPCIS repository endpoint must be granted by its operator.',
  },
  {
    adapterId: 'commerce-source-ingress',
    version: '2.0.0',
    title: 'Commerce platform lifecycle ingress',
    direction: 'INBOUND',
    channel: 'WEBHOOK',
    standards: [],
    events: ['svc.commercial-proof.source-modified.v1'],
    gate: 'Source ingress is externally gated: the commerce platform holds the source data and signs its deliveries.',
  },
  {
    adapterId: 'openid4vp-wallet-presentation',
    version: '2.0.0',
    title: 'Wallet presentation (OpenID4VP)',
    direction: 'INBOUND',
    channel: 'WALLET',
    standards: ['OPENID4VP_PRESENTATION', 'EUDI_WALLET_INTEROP'],
    events: ['svc.credential.status-changed.v1'],
    gate: 'Live wallet transport is gated.',
  },
  {
    adapterId: 'openid4vci-issuer-metadata',
    version: '2.0.0',
    title: 'Credential issuer metadata (OpenID4VCI)',
    direction: 'OUTBOUND',
    channel: 'WALLET',
    standards: ['OPENID4VCI_ISSUANCE', 'W3C_VC_2_CREDENTIAL'],
    events: [],
    gate: 'Live authorization and credential endpoints are gated; credential issuance is not offered by this service.',
  },
  {
    adapterId: 'udi-regulatory-reference',
    version: '2.0.0',
    title: 'Medical-device identifier to regulatory source reference',
    direction: 'INBOUND',
    channel: 'REST_API',
    standards: ['UDI_REGULATORY_REFERENCE'],
    events: [],
    gate: 'Access to a regulatory source database is granted by its operator.',
  },
  {
    adapterId: 'offline-verification-bundle',
    version: '2.0.0',
    title: 'Offline verification bundles',
    direction: 'OUTBOUND',
    channel: 'OFFLINE_VERIFY',
    standards: ['W3C_VC_2_CREDENTIAL'],
    events: [],
    gate: 'Bundles are verified offline; results never claim live lifecycle freshness.',
  },
] as const satisfies readonly AdapterEntry[];
