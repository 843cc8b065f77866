import type { z } from 'zod';
import type { EudiArf3Profiles, Iso20022Projection, StandardsCatalogue } from '../../functions/contract/schemas/catalogues';
import { STANDARD_MATURITIES, STANDARDS, type StandardKey, type StandardMaturity } from '../../functions/contract/standards';
import { componentSchemas } from '../contract/openapi';
import type { PublishSources } from './sources';

type EvidenceKind = 'OPERATION' | 'DOCUMENT' | 'EVENT' | 'ADAPTER';
interface EvidenceRef {
  kind: EvidenceKind;
  ref: string;
}

export const MATURITY_MEANINGS: Record<StandardMaturity, string> = {
  IMPLEMENTATION_READY: 'This service implements the parts named in the notes; what stays gated is said there.',
  TARGET_ALIGNMENT: 'A design target: the contract is shaped to align, nothing is implemented against it yet.',
  REFERENCE: 'Used as a reference vocabulary or framework; nothing is implemented against it.',
};

/** What in this service backs each standard's maturity (an operation, a document, an event contract or an adapter). */
export const STANDARD_EVIDENCE: Record<StandardKey, EvidenceRef[]> = {
  OIDC_FEDERATION: [{ kind: 'OPERATION', ref: 'GET /v1/activation-readiness' }],
  OAUTH_RESOURCE_AUTHORIZATION: [],
  FIDO_WEBAUTHN_AUTHENTICATION: [],
  SCIM_PROVISIONING: [],
  W3C_VC_2_CREDENTIAL: [{ kind: 'OPERATION', ref: 'GET /v1/portable-credentials/{claimId}/vc.json' }],
  OPENID4VCI_ISSUANCE: [{ kind: 'ADAPTER', ref: 'openid4vci-issuer-metadata' }],
  OPENID4VP_PRESENTATION: [{ kind: 'ADAPTER', ref: 'openid4vp-wallet-presentation' }],
  EUDI_WALLET_INTEROP: [{ kind: 'DOCUMENT', ref: '/developers/standards/eudi-arf3.json' }],
  OPEN_BADGES_3_PRESENTATION: [],
  EPCIS_EVENT_INTEROP: [
    { kind: 'EVENT', ref: 'svc.living-object.state-changed.v1' },
    { kind: 'ADAPTER', ref: 'epcis-event-projection' },
  ],
  UDI_REGULATORY_REFERENCE: [
    { kind: 'OPERATION', ref: 'GET /v1/objects/{reference}' },
    { kind: 'ADAPTER', ref: 'udi-regulatory-reference' },
  ],
};

function isPresent(evidence: EvidenceRef, sources: PublishSources): boolean {
  switch (evidence.kind) {
    case 'OPERATION':
      return sources.operations.some((op) => `${op.method} ${op.path}` === evidence.ref);
    case 'DOCUMENT':
      return sources.operations.some((op) => op.method === 'GET' && op.path === evidence.ref);
    case 'EVENT':
      return sources.events.some((e) => e.type === evidence.ref);
    case 'ADAPTER':
      return sources.adapters.some((a) => a.adapterId === evidence.ref);
  }
}

/**
 * An entry's evidence is complete only when it names at least one piece of evidence and every
 * piece is present in this build. Formal conformance is never asserted: no external assessment
 * is held, so every formal claim fails closed to NOT_ASSERTED.
 */
export function evidenceProfile(key: StandardKey, sources: PublishSources) {
  const evidence = STANDARD_EVIDENCE[key].map((e) => ({ ...e, present: isPresent(e, sources) }));
  return { evidence, evidenceComplete: evidence.length > 0 && evidence.every((e) => e.present) };
}

const NOT_ASSERTED_REASON = 'No external conformance assessment is held for this service; formal claims fail closed.';

export function buildStandardsCatalogue(sources: PublishSources): z.input<typeof StandardsCatalogue> {
  return {
    schemaVersion: 'svc.standards-catalogue.v1',
    statement:
      'Maturity describes this implementation only. No formal conformance, certification or accreditation is asserted for any standard: such claims fail closed until an external assessment exists.',
    maturities: STANDARD_MATURITIES.map((maturity) => ({ maturity, meaning: MATURITY_MEANINGS[maturity] })),
    standards: STANDARDS.map((s) => ({
      key: s.key,
      standard: s.standard,
      maturity: s.maturity,
      notes: s.notes,
      evidenceProfile: evidenceProfile(s.key, sources),
      formalClaim: { status: 'NOT_ASSERTED', reason: NOT_ASSERTED_REASON },
    })),
  };
}

const summary = (key: StandardKey) => {
  const s = STANDARDS.find((entry) => entry.key === key)!;
  return { key: s.key, standard: s.standard, maturity: s.maturity };
};

/** EUDI ARF 3.0.0 target profiles: where this service stands against each, as a relying party that verifies. */
export function buildEudiArf3(): z.input<typeof EudiArf3Profiles> {
  return {
    schemaVersion: 'svc.standards-eudi-arf3.v1',
    framework: { name: 'European Digital Identity Wallet Architecture and Reference Framework (EUDI ARF)', version: '3.0.0' },
    externalConformanceAsserted: false,
    statement: 'Target profiles only. No external conformance, certification or wallet-ecosystem registration is asserted.',
    role: 'Relying party that verifies public credential status; not a wallet, not a PID provider, not an attestation issuer.',
    profiles: [
      {
        profileId: 'RELYING_PARTY_PRESENTATION',
        title: 'Relying party requesting presentations from EUDI wallets',
        targets: ['OpenID4VP 1.0', 'High Assurance Interoperability Profile (HAIP)'],
        standards: [summary('OPENID4VP_PRESENTATION'), summary('EUDI_WALLET_INTEROP')],
        status: 'FOUNDATION_IMPLEMENTED',
        notes: 'Presentation-definition foundations exist; live wallet transport is gated.',
      },
      {
        profileId: 'ATTESTATION_ISSUER_METADATA',
        title: 'Attestation issuer metadata',
        targets: ['OpenID4VCI 1.0 credential issuer metadata'],
        standards: [summary('OPENID4VCI_ISSUANCE')],
        status: 'FOUNDATION_IMPLEMENTED',
        notes: 'Metadata foundations only; live authorization and credential endpoints are gated and issuance is excluded from this service.',
      },
      {
        profileId: 'ATTESTATION_FORMATS',
        title: 'Electronic attestation of attributes formats',
        targets: ['SD-JWT VC', 'ISO/IEC 18013-5 mdoc', 'W3C VC 2.0'],
        standards: [summary('W3C_VC_2_CREDENTIAL')],
        status: 'TARGET',
        notes: 'Existing credentials project into W3C VC 2.0; SD-JWT VC and mdoc are targets.',
      },
      {
        profileId: 'TRUSTED_LISTS',
        title: 'Trusted list consumption for issuer trust',
        targets: ['ETSI TS 119 612 trusted lists'],
        standards: [summary('EUDI_WALLET_INTEROP')],
        status: 'TARGET',
        notes: 'Issuer trust is not yet anchored in trusted lists.',
      },
      {
        profileId: 'PID_PROVISION',
        title: 'Person identification data provision',
        targets: ['PID rulebook'],
        standards: [],
        status: 'OUT_OF_SCOPE',
        notes: 'This service holds no personal data and provides no PID.',
      },
    ],
    fcaf: {
      name: 'Functional Conformance Assessment Framework (FCAF) for EUDI Wallets',
      systemUnderTest: 'Wallet Solution',
      applicability: 'FCAF test cases assess wallet solutions; this relying-party service is not a system under test. Its profiles are aligned to the same protocols as targets.',
      testCasesExecuted: 0,
      conformanceAsserted: false,
    },
  };
}

/**
 * ISO 20022 semantic projection targets: which public field would map to which message element
 * if a partner projected our evidence into their payment messages. This service produces no
 * ISO 20022 message and holds no banking or payment authority.
 */
export function buildIso20022(): z.input<typeof Iso20022Projection> {
  const components = componentSchemas('draft-2020-12');
  const inContract = (source: string): boolean => {
    const [component, ...fieldPath] = source.split('.');
    let node: any = components[component];
    for (const field of fieldPath) {
      if (!node) return false;
      if (node.$ref) node = components[String(node.$ref).split('/').pop()!];
      node = node?.properties?.[field];
    }
    return node !== undefined;
  };
  const targets = [
    {
      source: 'CommercialProofEvidence.proof',
      projection: 'TARGET' as const,
      messageDefinitions: ['pain.001', 'camt.054', 'remt.001'],
      element: 'RemittanceInformation/Structured/ReferredDocumentInformation/Number',
      notes: 'The proof reference identifies the commercial document a remittance refers to.',
    },
    {
      source: 'CustomerAccountOrderCard.businessReference',
      projection: 'TARGET' as const,
      messageDefinitions: ['pain.001', 'camt.054'],
      element: 'RemittanceInformation/Structured/CreditorReferenceInformation/Reference',
      notes: 'The printed business reference of an order-like record.',
    },
    {
      source: 'CustomerAccountOrderCard.paymentState',
      projection: 'NEVER' as const,
      messageDefinitions: [],
      element: null,
      notes: 'Payment state is always null in this service and is never projected.',
    },
    {
      source: 'CustomerAccountOrderCard.refundState',
      projection: 'NEVER' as const,
      messageDefinitions: [],
      element: null,
      notes: 'Refund state is always null in this service and is never projected.',
    },
  ];
  return {
    schemaVersion: 'svc.standards-iso20022.v1',
    bankingAuthority: false,
    paymentAuthority: false,
    paymentAccountDataProjected: false,
    messagesProduced: [],
    statement:
      'Semantic projection targets only: no ISO 20022 message is produced, no payment is initiated or captured, and no payment account data is held or projected.',
    targets: targets.map((t) => ({ ...t, sourceInContract: inContract(t.source) })),
  };
}
