import type { z } from 'zod';
import type { BodyPlan } from '../../contract/body-check';
import {
  ASSURANCE_LEVELS,
  COMMERCE_SOURCE_STATES,
  IDENTITY_EVIDENCE,
  SANDBOX_STATEMENT,
  SYNTHETIC_CREDENTIAL_STATUSES,
  WALLET_CREDENTIAL_TYPES,
} from '../../contract/sandbox-values';
import type * as S from '../../contract/schemas/sandbox';
import { commerceSourceRequest, credentialStatusRequest, identityVerifierRequest, paymentProcessorRequest, walletRequest } from '../../generated/bodies';
import { evaluationInstant } from './clock';
import { canonicalSha256, digestOf } from './digest';
import { checkAgainst } from '../json-input';

/**
 * The synthetic providers without their schemas: what a provider run needs (its request checked
 * with the plan generated from its contract schema, functions/generated/bodies.ts), so that the
 * function that runs providers loads neither zod nor the sandbox's schemas. Each stands in for an
 * external party the platform deals with (a commerce platform, an identity verifier, a holder
 * wallet, a payment processor, a credential status registry) and answers from its request alone:
 * no clock, no randomness, no I/O, and no production authority anywhere. ./providers.ts adds each
 * provider's request and result schemas for the published documents.
 */
export interface ProviderRun<Request extends z.ZodType = z.ZodType, Result extends z.ZodType = z.ZodType> {
  providerId: string;
  description: string;
  /** What it never does, in one line (published with the provider). */
  boundary: string;
  /** The request's check, generated from the request schema (its contract component). */
  requestPlan: BodyPlan<z.output<Request>>;
  exampleRequest: z.input<Request>;
  run(request: z.output<Request>): z.output<Result>;
}

function defineProvider<Req extends z.ZodType, Res extends z.ZodType>(provider: ProviderRun<Req, Res>): ProviderRun<Req, Res> {
  return provider;
}

/** A stable choice from a list, keyed by the SHA-256 of a value: the same value always picks the same item. */
function pickByDigest<T>(items: readonly T[], label: string, value: string): T {
  const digest = canonicalSha256({ label, value });
  return items[parseInt(digest.slice(0, 8), 16) % items.length];
}

const SKUS = ['SKU-SYN-TEE', 'SKU-SYN-MUG', 'SKU-SYN-LAMP', 'SKU-SYN-BOOK', 'SKU-SYN-CABLE'] as const;

export const commerceSource = defineProvider<typeof S.CommerceSourceRequest, typeof S.CommerceSourceResult>({
  providerId: 'commerce-source',
  description:
    'A synthetic external commerce platform: returns a source snapshot (state, digest, lines, observedAt) for an order reference, as the synchronisation of commercial proofs reads it.',
  boundary: 'Reads and changes no order at any commerce platform; the snapshot is generated from the request.',
  requestPlan: commerceSourceRequest,
  exampleRequest: { sourceReference: 'ORD-SBX-1001', scenario: 'DELIVERED' },
  run(request) {
    const { at } = evaluationInstant(request);
    const state = request.scenario ?? pickByDigest(COMMERCE_SOURCE_STATES, 'state', request.sourceReference);
    const lineCount = 1 + (parseInt(canonicalSha256({ label: 'lines', value: request.sourceReference }).slice(0, 4), 16) % 3);
    const lines = Array.from({ length: lineCount }, (_, i) => ({
      sku: pickByDigest(SKUS, `sku-${i}`, request.sourceReference),
      quantity: 1 + (parseInt(canonicalSha256({ label: `qty-${i}`, value: request.sourceReference }).slice(0, 2), 16) % 4),
    }));
    return {
      sourceSystem: 'SYNTHETIC_COMMERCE_PLATFORM' as const,
      sourceReference: request.sourceReference,
      state,
      stateChosenBy: request.scenario ? ('SCENARIO' as const) : ('REFERENCE_DIGEST' as const),
      sourceDigest: digestOf({ sourceReference: request.sourceReference, state, lines }),
      observedAt: at,
      lines,
    };
  },
});

/** The level each evidence type reaches on its own. */
const EVIDENCE_LEVEL: Record<(typeof IDENTITY_EVIDENCE)[number], S.AssuranceLevel> = {
  EMAIL_CONTROL: 'LOW',
  PHONE_CONTROL: 'LOW',
  IDENTITY_DOCUMENT: 'SUBSTANTIAL',
  DOCUMENT_WITH_LIVENESS: 'HIGH',
  EUDI_PID: 'HIGH',
};
export const assuranceRank = (level: S.AssuranceLevel): number => ASSURANCE_LEVELS.indexOf(level);

export const identityVerifier = defineProvider<typeof S.IdentityVerifierRequest, typeof S.IdentityVerifierResult>({
  providerId: 'identity-verifier',
  description:
    'A synthetic identity verifier: given the evidence types a pseudonymous subject presents, returns the assurance level reached (EMAIL_CONTROL, PHONE_CONTROL: LOW; IDENTITY_DOCUMENT: SUBSTANTIAL; DOCUMENT_WITH_LIVENESS, EUDI_PID: HIGH) against the level requested.',
  boundary: 'Verifies and binds no real identity; accepts no personal data, only a pseudonymous subject id.',
  requestPlan: identityVerifierRequest,
  exampleRequest: { subjectId: 'subject-sbx-42', evidence: ['EMAIL_CONTROL', 'IDENTITY_DOCUMENT'], requestedAssurance: 'SUBSTANTIAL' },
  run(request) {
    let best: { level: S.AssuranceLevel; by: string } = { level: 'NONE', by: 'none' };
    for (const evidence of request.evidence) {
      const level = EVIDENCE_LEVEL[evidence];
      if (assuranceRank(level) > assuranceRank(best.level)) best = { level, by: evidence };
    }
    const requestedAssurance = request.requestedAssurance ?? 'SUBSTANTIAL';
    const sortedEvidence = [...request.evidence].sort();
    return {
      verificationId: `idv_${canonicalSha256({ subjectId: request.subjectId, evidence: sortedEvidence, requestedAssurance }).slice(0, 24)}`,
      subjectId: request.subjectId,
      assuranceLevel: best.level,
      requestedAssurance,
      outcome: assuranceRank(best.level) >= assuranceRank(requestedAssurance) ? ('MEETS_REQUESTED' as const) : ('BELOW_REQUESTED' as const),
      decidedBy: best.by,
      identityBound: false as const,
    };
  },
});

/** What each synthetic credential in the wallet holds: obviously synthetic values, no personal data. */
const WALLET_CLAIMS: Record<(typeof WALLET_CREDENTIAL_TYPES)[number], Record<string, string | boolean | number>> = {
  PROOF_OF_PURCHASE: { orderReference: 'ORD-SBX-1001', purchaseDate: '2025-12-01', productCategory: 'HOUSEHOLD', merchant: 'Synthetic Merchant' },
  PRODUCT_WARRANTY: { warrantyReference: 'WTY-SBX-2001', productCategory: 'HOUSEHOLD', validUntil: '2027-12-01', coverage: 'PARTS_AND_LABOUR' },
  AGE_OVER_18: { ageOver18: true, issuingCountry: 'ZZ' },
};

export const wallet = defineProvider<typeof S.WalletRequest, typeof S.WalletResult>({
  providerId: 'wallet',
  description:
    'A synthetic holder wallet: answers a presentation request with selective disclosure, disclosing only the requested claims its synthetic credential holds and listing the rest as withheld.',
  boundary: 'Holds no real credential, signs nothing and binds no holder: its presentations cannot be replayed as real ones.',
  requestPlan: walletRequest,
  exampleRequest: { credentialType: 'PROOF_OF_PURCHASE', requestedClaims: ['orderReference', 'purchaseDate', 'customerName'], nonce: 'n-0S6_WzA2Mj', audience: 'verifier.example' },
  run(request) {
    const held = WALLET_CLAIMS[request.credentialType];
    const requested = [...new Set(request.requestedClaims)];
    return {
      presentationId: `vp_${canonicalSha256({ credentialType: request.credentialType, requested, nonce: request.nonce, audience: request.audience }).slice(0, 24)}`,
      credentialType: request.credentialType,
      audience: request.audience,
      nonce: request.nonce,
      disclosed: requested.filter((claim) => Object.hasOwn(held, claim)).map((claim) => ({ claim, value: held[claim] })),
      withheld: requested.filter((claim) => !Object.hasOwn(held, claim)),
      holderBinding: 'NONE_SYNTHETIC' as const,
      signed: false as const,
    };
  },
});

export const paymentProcessor = defineProvider<typeof S.PaymentProcessorRequest, typeof S.PaymentProcessorResult>({
  providerId: 'payment-processor',
  description:
    'A synthetic payment processor that can only ever answer NOT_AUTHORISED_TO_CAPTURE, whatever the operation: the sandbox holds no payment authority.',
  boundary: 'Calls no payment provider, moves no funds, captures nothing; accepts no card or account data.',
  requestPlan: paymentProcessorRequest,
  exampleRequest: { operation: 'CAPTURE', amountMinor: 4999, currency: 'EUR', merchantReference: 'MER-SBX-77' },
  run(request) {
    return {
      outcome: 'NOT_AUTHORISED_TO_CAPTURE' as const,
      operation: request.operation,
      amountMinor: request.amountMinor,
      currency: request.currency,
      merchantReference: request.merchantReference,
      captured: false as const,
      fundsMoved: false as const,
      reason: 'The sandbox holds no payment authority: no operation is forwarded to any payment provider and no funds move.',
    };
  },
});

export const credentialStatus = defineProvider<typeof S.CredentialStatusRequest, typeof S.CredentialStatusResult>({
  providerId: 'credential-status',
  description:
    'A synthetic credential status registry: returns VALID, SUSPENDED, REVOKED or EXPIRED for a credential id (forced by scenario, else stable for the id) and the instant it was checked, ready to feed a trust-policy subject.',
  boundary: 'Issues, suspends and revokes nothing; the status is generated from the request.',
  requestPlan: credentialStatusRequest,
  exampleRequest: { credentialId: 'cred-sbx-0001', scenario: 'VALID' },
  run(request) {
    const { at } = evaluationInstant(request);
    return {
      credentialId: request.credentialId,
      status: request.scenario ?? pickByDigest(SYNTHETIC_CREDENTIAL_STATUSES, 'status', request.credentialId),
      statusChosenBy: request.scenario ? ('SCENARIO' as const) : ('IDENTIFIER_DIGEST' as const),
      statusListIndex: parseInt(canonicalSha256({ label: 'index', value: request.credentialId }).slice(0, 6), 16) % 131072,
      checkedAt: at,
      issuanceAuthority: 'NONE_SYNTHETIC' as const,
    };
  },
});

export const PROVIDER_RUNS: readonly ProviderRun[] = [commerceSource, identityVerifier, wallet, paymentProcessor, credentialStatus];

export function findProvider(providerId: string): ProviderRun | undefined {
  return PROVIDER_RUNS.find((p) => p.providerId === providerId);
}

/** Checks a request against the provider's own request schema (its generated plan); throws JsonInputError naming the failing field. */
export function providerRequest(provider: Pick<ProviderRun, 'requestPlan'>, value: unknown): unknown {
  return checkAgainst(provider.requestPlan, value);
}

/** Runs a provider on a request its schema has validated. */
export function runProvider(provider: Pick<ProviderRun, 'providerId' | 'run'>, request: unknown): S.ProviderRunResult {
  return {
    schemaVersion: 'svc.sandbox-provider-result.v1',
    providerId: provider.providerId,
    requestDigest: digestOf(request),
    result: provider.run(request) as S.ProviderRunResult['result'],
    sandbox: SANDBOX_STATEMENT,
  };
}
