import type { AssuranceLevelKey, TrustFabricCatalogue } from '../../contract/schemas/surfaces';
import { CREDENTIAL_DISCLOSURE } from '../credentials/verification';
import { PUBLIC_DISCLOSURE } from '../objects';
import { PROOF_DISCLOSURE } from '../proofs';
import { ASSURANCE_RULES } from './assurance';
import { CATALOGUE_DISCLOSURE } from './disclosure';
import { bestLiveState, endpointRef, findOperation, type OperationRow } from './endpoints';


interface TrustServiceDefinition {
  key: string;
  name: string;
  description: string;
  authority: string;
  assuranceLevels: AssuranceLevelKey[];
  disclosureClass: string;
  providerBinding: 'NONE' | 'GATED';
  /** Method and path of the operations that deliver the service (paths are fixed by the specification). */
  endpoints: Array<['GET' | 'POST', string]>;
}

const ALL_LEVELS: AssuranceLevelKey[] = ['UNKNOWN', 'HISTORICAL', 'OBSERVED', 'CURRENT_CONFIRMED'];

/**
 * The services in provider-neutral terms: what question each answers and who holds the
 * authority behind the answer. No provider is named; binding one is gated.
 */
export const TRUST_SERVICES: readonly TrustServiceDefinition[] = [
  {
    key: 'LIVING_OBJECT_RESOLUTION',
    name: 'Living object resolution',
    description: 'Resolves a reference to the current (or as-of) authoritative state, a lifecycle-safe presentation and a timeline; also as a human trust receipt.',
    authority: 'SERVICE_PLATFORM',
    assuranceLevels: ALL_LEVELS,
    disclosureClass: PUBLIC_DISCLOSURE.class!,
    providerBinding: 'NONE',
    endpoints: [
      ['GET', '/v1/objects/{reference}'],
      ['GET', '/trust-receipt/{reference}'],
      ['GET', '/verify'],
    ],
  },
  {
    key: 'COMMERCIAL_PROOF_EVIDENCE',
    name: 'Commercial proof evidence',
    description: 'Returns a commercial proof with the current lifecycle of its source; ledger evidence attests integrity only.',
    authority: 'EXTERNAL_COMMERCE_PLATFORM',
    assuranceLevels: ALL_LEVELS,
    disclosureClass: PROOF_DISCLOSURE.class!,
    providerBinding: 'GATED',
    endpoints: [['GET', '/v1/commercial-proofs/{reference}']],
  },
  {
    key: 'CREDENTIAL_STATUS_VERIFICATION',
    name: 'Credential status verification',
    description: 'Reports the public verification state of a credential and projects it as a W3C Verifiable Credential; issues nothing.',
    authority: 'SERVICE_PLATFORM',
    assuranceLevels: ALL_LEVELS,
    disclosureClass: CREDENTIAL_DISCLOSURE.class!,
    providerBinding: 'GATED',
    endpoints: [
      ['GET', '/v1/credentials/verify/{claimId}'],
      ['GET', '/v1/portable-credentials/{claimId}/vc.json'],
    ],
  },
  {
    key: 'LEDGER_INTEGRITY_EVIDENCE',
    name: 'Ledger integrity evidence',
    description: 'Publishes the log origin and verifier key so anyone can re-check inclusion proofs offline. Proves integrity, never authority.',
    authority: 'SERVICE_PLATFORM',
    assuranceLevels: [],
    disclosureClass: 'PUBLIC_LEDGER',
    providerBinding: 'NONE',
    endpoints: [['GET', '/v1/ledger']],
  },
  {
    key: 'OFFLINE_VERIFICATION_ASSESSMENT',
    name: 'Offline verification assessment',
    description: 'Assesses PASS, HOLD or FAIL from material a verifier holds offline. Never claims live lifecycle freshness, so never CURRENT_CONFIRMED.',
    authority: 'NONE (deterministic sandbox)',
    assuranceLevels: ['UNKNOWN', 'HISTORICAL', 'OBSERVED'],
    disclosureClass: 'SYNTHETIC_SANDBOX',
    providerBinding: 'NONE',
    endpoints: [['POST', '/developers/sandbox/offline-verification']],
  },
  {
    key: 'TRUST_POLICY_EVALUATION',
    name: 'Trust policy evaluation',
    description: 'Evaluates a trust policy to ALLOW, DENY or STEP_UP, deterministically and without production side effects.',
    authority: 'NONE (deterministic sandbox)',
    assuranceLevels: [],
    disclosureClass: 'SYNTHETIC_SANDBOX',
    providerBinding: 'NONE',
    endpoints: [['POST', '/developers/sandbox/trust-policy']],
  },
];

export const DISCLOSURE_CLASSES: TrustFabricCatalogue['disclosureClasses'] = [
  { key: PUBLIC_DISCLOSURE.class!, disclosedInResponses: true, description: 'Public record content, lifecycle state, freshness and timeline of a living object.', containsCustomerPii: false, containsPaymentAccountData: false },
  { key: PROOF_DISCLOSURE.class!, disclosedInResponses: true, description: 'A commercial proof, the lifecycle of its source and its synchronisation state.', containsCustomerPii: false, containsPaymentAccountData: false },
  { key: CREDENTIAL_DISCLOSURE.class!, disclosedInResponses: true, description: 'Whether a credential is valid, suspended or revoked, without its subject data.', containsCustomerPii: false, containsPaymentAccountData: false },
  { key: 'PUBLIC_LEDGER', disclosedInResponses: true, description: 'Hashes, inclusion proofs, signed checkpoints and the verifier key.', containsCustomerPii: false, containsPaymentAccountData: false },
  { key: 'PUBLIC_CATALOGUE', disclosedInResponses: true, description: 'Catalogues, contracts and readiness reports (presence of settings, never values).', containsCustomerPii: false, containsPaymentAccountData: false },
  { key: 'SYNTHETIC_SANDBOX', disclosedInResponses: true, description: 'Deterministic synthetic results computed from the request alone.', containsCustomerPii: false, containsPaymentAccountData: false },
  {
    key: 'RESTRICTED',
    disclosedInResponses: false,
    description: 'Customer personal data and payment account data the platform holds with a record. Never projected into any response, page or log.',
    containsCustomerPii: true,
    containsPaymentAccountData: true,
  },
];

/**
 * The provider-neutral trust fabric catalogue. Endpoints and their liveState come from the
 * contract table passed in; a service none of whose endpoints the table publishes is left out.
 */
export function buildTrustFabricCatalogue(operations: readonly OperationRow[], baseUrl: string): TrustFabricCatalogue {
  const trustServices: TrustFabricCatalogue['trustServices'] = [];
  for (const service of TRUST_SERVICES) {
    const published = service.endpoints
      .map(([method, path]) => findOperation(operations, method, path))
      .filter((op): op is OperationRow => op !== undefined);
    const liveState = bestLiveState(published.map((op) => op.liveState));
    if (!liveState) continue;
    const { endpoints: _declared, ...rest } = service;
    trustServices.push({ ...rest, liveState, endpoints: published.map((op) => endpointRef(baseUrl, op)) });
  }
  return {
    schemaVersion: 'svc.trust-fabric-catalogue.v1',
    providerNeutral: true,
    statement:
      'Services are described by the question they answer and the authority behind the answer, never by a provider. ' +
      'Binding a provider, and every authority-changing operation, is gated. Ledger evidence proves integrity only.',
    trustServices,
    assuranceLevels: ASSURANCE_RULES.map((r) => ({ ...r })),
    disclosureClasses: DISCLOSURE_CLASSES,
    disclosure: CATALOGUE_DISCLOSURE,
  };
}
