import { CHANNEL_READINESS, CHANNELS, OFFLINE_VERIFICATION_STATEMENT } from '../../contract/channels';
import { LIVE_STATES } from '../../contract/operation';
import type { TrustInfrastructure } from '../../contract/schemas/surfaces';
import { STANDARD_MATURITIES, STANDARDS, type StandardKey, type StandardMaturity } from '../../contract/standards';
import { ORDER_LIKE_TYPES } from '../lifecycle';
import { countBy, definedLinks, endpointRef, linkIfPublished, type OperationRow } from './endpoints';
import { CATALOGUE_DISCLOSURE } from './disclosure';
import { TRUST_SERVICES } from './trust-fabric';

type TrustServiceKey = (typeof TRUST_SERVICES)[number]['key'];

interface VerticalProfileDefinition {
  key: string;
  name: string;
  description: string;
  objectTypes: readonly string[];
  trustServices: readonly TrustServiceKey[];
  standards: readonly StandardKey[];
  /** What the profile never does, whatever is configured. */
  boundary: string;
}

/**
 * Industry profiles: which object types, trust services and standards a vertical uses. Standard
 * keys are typed against the standards table, so a profile cannot name a standard that is not in it.
 */
export const VERTICAL_PROFILES: readonly VerticalProfileDefinition[] = [
  {
    key: 'COMMERCE_ORDERS',
    name: 'Commerce orders and subscriptions',
    description: 'Order-like objects resolved with a customer account order card; commercial proofs tied to their source lifecycle.',
    objectTypes: ORDER_LIKE_TYPES,
    trustServices: ['LIVING_OBJECT_RESOLUTION', 'COMMERCIAL_PROOF_EVIDENCE', 'LEDGER_INTEGRITY_EVIDENCE'],
    standards: [],
    boundary: 'Payment and refund state are never disclosed; no payment is captured and no commerce data is changed.',
  },
  {
    key: 'PRODUCT_WARRANTY',
    name: 'Product warranties',
    description: 'Warranties as living objects whose standing is checked against their authority, with freshness.',
    objectTypes: ['WARRANTY'],
    trustServices: ['LIVING_OBJECT_RESOLUTION', 'LEDGER_INTEGRITY_EVIDENCE', 'OFFLINE_VERIFICATION_ASSESSMENT'],
    standards: ['W3C_VC_2_CREDENTIAL'],
    boundary: 'The service reports warranty state; it grants no entitlement and settles no claim.',
  },
  {
    key: 'DEVICE_PROVENANCE',
    name: 'Devices and supply-chain provenance',
    description: 'Devices in service, superseded or recalled, with custody and provenance events projected onto EPCIS.',
    objectTypes: ['DEVICE'],
    trustServices: ['LIVING_OBJECT_RESOLUTION', 'LEDGER_INTEGRITY_EVIDENCE', 'OFFLINE_VERIFICATION_ASSESSMENT'],
    standards: ['EPCIS_EVENT_INTEROP'],
    boundary: 'Events are projected, never captured from outside: source ingress is externally gated.',
  },
  {
    key: 'MEDICAL_DEVICES',
    name: 'Medical devices',
    description: 'Device identifiers resolved to their regulatory source references alongside lifecycle state.',
    objectTypes: ['DEVICE'],
    trustServices: ['LIVING_OBJECT_RESOLUTION', 'LEDGER_INTEGRITY_EVIDENCE'],
    standards: ['UDI_REGULATORY_REFERENCE', 'EPCIS_EVENT_INTEROP'],
    boundary: 'A reference to the regulatory source, never a regulatory decision: regulatory authority stays fail-closed.',
  },
  {
    key: 'DIGITAL_CREDENTIALS',
    name: 'Digital credentials and wallets',
    description: 'Public status of credentials, their W3C VC projection, and the wallet protocols they travel over.',
    objectTypes: [],
    trustServices: ['CREDENTIAL_STATUS_VERIFICATION', 'LEDGER_INTEGRITY_EVIDENCE', 'OFFLINE_VERIFICATION_ASSESSMENT', 'TRUST_POLICY_EVALUATION'],
    standards: ['W3C_VC_2_CREDENTIAL', 'OPENID4VCI_ISSUANCE', 'OPENID4VP_PRESENTATION', 'EUDI_WALLET_INTEROP', 'OPEN_BADGES_3_PRESENTATION'],
    boundary: 'No credential is issued or changed; live issuance and wallet transport are gated (see /v1/activation-readiness).',
  },
  {
    key: 'IDENTITY_AND_ACCESS',
    name: 'Identity and access for operators',
    description: 'How operators of a deployment would sign in and be provisioned; the public reads need none of it.',
    objectTypes: [],
    trustServices: ['TRUST_POLICY_EVALUATION'],
    standards: ['OIDC_FEDERATION', 'OAUTH_RESOURCE_AUTHORIZATION', 'FIDO_WEBAUTHN_AUTHENTICATION', 'SCIM_PROVISIONING'],
    boundary: 'No protected route is published; identity activation is gated (see /v1/activation-readiness).',
  },
];

const MATURITY_RANK = Object.fromEntries(STANDARD_MATURITIES.map((m, i) => [m, i])) as Record<StandardMaturity, number>;

/** The least mature standard a profile depends on: a profile is no readier than its weakest standard. */
export function lowestMaturity(keys: readonly StandardKey[]): StandardMaturity | null {
  const maturities = keys.map((key) => STANDARDS.find((s) => s.key === key)!.maturity as StandardMaturity);
  if (maturities.length === 0) return null;
  return maturities.reduce((lowest, m) => (MATURITY_RANK[m] > MATURITY_RANK[lowest] ? m : lowest));
}

const tagKey = (tag: string): string => tag.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_|_$/g, '');

/** The well-known entry points of the trust infrastructure, linked only when the contract table publishes them. */
export function infrastructureLinks(operations: readonly OperationRow[], baseUrl: string): Record<string, string> {
  const link = (path: string) => linkIfPublished(operations, baseUrl, path);
  return definedLinks({
    self: link('/v1/trust-infrastructure'),
    trustFabricCatalogue: link('/v1/trust-fabric/catalogue'),
    activationReadiness: link('/v1/activation-readiness'),
    productionFoundations: link('/v1/activation-readiness/production-foundations'),
    ledgerKey: link('/v1/ledger'),
    developerCatalogue: link('/developers/catalogue.json'),
    openapi: link('/developers/openapi.json'),
    standardsCatalogue: link('/developers/standards/catalogue.json'),
    sandboxExamples: link('/developers/sandbox/examples.json'),
    verify: link('/verify'),
    studio: link('/studio'),
  });
}

/**
 * Capabilities are the contract table grouped by tag; standards and channels are the canonical
 * tables as they stand; readiness is counted from the same sources. Nothing is restated by hand.
 */
export function buildTrustInfrastructure(operations: readonly OperationRow[], baseUrl: string): TrustInfrastructure {
  const tags = [...new Set(operations.map((op) => op.tag))];
  return {
    schemaVersion: 'svc.trust-infrastructure.v1',
    capabilities: tags.map((tag) => ({
      key: tagKey(tag),
      name: tag,
      endpoints: operations.filter((op) => op.tag === tag).map((op) => endpointRef(baseUrl, op)),
    })),
    standards: STANDARDS.map((s) => ({ ...s })),
    channels: CHANNELS.map((c) => ({ ...c })),
    verticalProfiles: VERTICAL_PROFILES.map((p) => ({
      key: p.key,
      name: p.name,
      description: p.description,
      objectTypes: [...p.objectTypes],
      trustServices: [...p.trustServices],
      standards: [...p.standards],
      lowestStandardMaturity: lowestMaturity(p.standards),
      boundary: p.boundary,
    })),
    readiness: {
      endpoints: countBy(LIVE_STATES, operations.map((op) => op.liveState)),
      channels: countBy(CHANNEL_READINESS, CHANNELS.map((c) => c.readiness)),
      standards: countBy(STANDARD_MATURITIES, STANDARDS.map((s) => s.maturity)),
      productionAuthority: 'FAIL_CLOSED',
      offlineVerification: OFFLINE_VERIFICATION_STATEMENT,
    },
    links: infrastructureLinks(operations, baseUrl),
    developerDocuments: operations
      .filter((op) => op.method === 'GET' && op.path.startsWith('/developers/') && !op.path.includes('{'))
      .map((op) => endpointRef(baseUrl, op)),
    disclosure: CATALOGUE_DISCLOSURE,
  };
}
