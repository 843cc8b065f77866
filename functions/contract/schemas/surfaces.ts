import * as z from 'zod';
import { LIVE_STATES } from '../operation';
import { component } from '../registry';
import { Instant, MinimalDisclosure } from './common';

/** Ranked from "nothing known" to "current and confirmed"; see docs/surfaces.md for the rule. */
export const ASSURANCE_LEVELS = ['UNKNOWN', 'HISTORICAL', 'OBSERVED', 'CURRENT_CONFIRMED'] as const;
export const AssuranceLevelKey = z.enum(ASSURANCE_LEVELS);
export type AssuranceLevelKey = z.infer<typeof AssuranceLevelKey>;

export const LiveStateValue = z.enum(LIVE_STATES);

const Url = z.string().describe('Absolute URL on this service (an RFC 6570 template where it holds {braces}).');

export const EndpointRef = component(
  'EndpointRef',
  z.object({
    operationId: z.string(),
    method: z.enum(['GET', 'POST']),
    path: z.string(),
    href: Url,
    liveState: LiveStateValue,
  }),
  'One operation of the contract table, with its absolute address and liveState.',
);
export type EndpointRef = z.infer<typeof EndpointRef>;

export const TrustFabricCatalogue = component(
  'TrustFabricCatalogue',
  z.object({
    schemaVersion: z.literal('svc.trust-fabric-catalogue.v1'),
    providerNeutral: z.literal(true),
    statement: z.string(),
    trustServices: z.array(
      z.object({
        key: z.string(),
        name: z.string(),
        description: z.string(),
        authority: z.string().describe('Who holds the authority behind the answer.'),
        liveState: LiveStateValue.describe('The most available state among its endpoints.'),
        assuranceLevels: z.array(AssuranceLevelKey),
        disclosureClass: z.string(),
        providerBinding: z.enum(['NONE', 'GATED']),
        endpoints: z.array(EndpointRef),
      }),
    ),
    assuranceLevels: z.array(
      z.object({
        key: AssuranceLevelKey,
        rank: z.number().int(),
        meaning: z.string(),
        rule: z.string(),
      }),
    ),
    disclosureClasses: z.array(
      z.object({
        key: z.string(),
        disclosedInResponses: z.boolean(),
        description: z.string(),
        containsCustomerPii: z.boolean(),
        containsPaymentAccountData: z.boolean(),
      }),
    ),
    disclosure: MinimalDisclosure,
  }),
  'Provider-neutral trust services, the assurance levels an answer can carry, and the disclosure classes.',
);
export type TrustFabricCatalogue = z.infer<typeof TrustFabricCatalogue>;

export const TrustInfrastructure = component(
  'TrustInfrastructure',
  z.object({
    schemaVersion: z.literal('svc.trust-infrastructure.v1'),
    capabilities: z.array(
      z.object({
        key: z.string(),
        name: z.string(),
        endpoints: z.array(EndpointRef),
      }),
    ),
    standards: z.array(z.object({ key: z.string(), standard: z.string(), maturity: z.string() }).loose()),
    channels: z.array(z.object({ key: z.string(), readiness: z.string() }).loose()),
    verticalProfiles: z.array(
      z.object({
        key: z.string(),
        name: z.string(),
        description: z.string(),
        objectTypes: z.array(z.string()),
        trustServices: z.array(z.string()),
        standards: z.array(z.string()),
        lowestStandardMaturity: z.string().nullable(),
        boundary: z.string(),
      }),
    ),
    readiness: z.object({
      endpoints: z.record(z.string(), z.number().int()),
      channels: z.record(z.string(), z.number().int()),
      standards: z.record(z.string(), z.number().int()),
      productionAuthority: z.literal('FAIL_CLOSED'),
      offlineVerification: z.string(),
    }),
    links: z.record(z.string(), Url),
    developerDocuments: z.array(EndpointRef),
    disclosure: MinimalDisclosure,
  }),
  'Capabilities (by contract tag), standards, channels, vertical profiles and readiness, with links.',
);
export type TrustInfrastructure = z.infer<typeof TrustInfrastructure>;

export const SETTING_STATUSES = ['CONFIGURED', 'NOT_CONFIGURED', 'INVALID'] as const;
export const GATE_STATUSES = ['CONFIGURED', 'NOT_CONFIGURED', 'MISCONFIGURED'] as const;

export const ActivationReadiness = component(
  'ActivationReadiness',
  z.object({
    schemaVersion: z.literal('svc.activation-readiness.v1'),
    checkedAt: Instant,
    liveActivation: z.literal('GATED'),
    gates: z.array(
      z.object({
        key: z.string(),
        name: z.string(),
        standard: z.string(),
        status: z.enum(GATE_STATUSES),
        liveActivation: z.literal('GATED'),
        explanation: z.string(),
        settings: z.array(
          z.object({
            name: z.string().describe('Environment variable name; its value is never shown.'),
            expects: z.string(),
            status: z.enum(SETTING_STATUSES),
          }),
        ),
      }),
    ),
    secretsDisclosed: z.literal(false),
    links: z.record(z.string(), Url),
    disclosure: MinimalDisclosure,
  }),
  'Identity and wallet-protocol activation gates, checked when asked; settings report presence, never values.',
);
export type ActivationReadiness = z.infer<typeof ActivationReadiness>;

export const PERSISTENCE_STATUSES = [
  'READY',
  'NOT_CONFIGURED',
  'UNREACHABLE',
  'TABLE_NOT_FOUND',
  'ACCESS_DENIED',
  'UNEXPECTED_ERROR',
  'SCHEMA_VERSION_MISSING',
  'SCHEMA_VERSION_MISMATCH',
] as const;
export const CHECK_OUTCOMES = ['PASS', 'FAIL', 'SKIPPED'] as const;
export const FAIL_CLOSED_AUTHORITIES = ['SIGNING', 'CUSTODY', 'TREASURY', 'SETTLEMENT', 'REGULATORY_AUTHORITY'] as const;

export const ProductionFoundations = component(
  'ProductionFoundations',
  z.object({
    schemaVersion: z.literal('svc.production-foundations.v1'),
    checkedAt: Instant,
    status: z.enum(['READY', 'NOT_READY']).describe('READY when every persistence check passes.'),
    persistence: z.object({
      status: z.enum(PERSISTENCE_STATUSES),
      schemaVersion: z.object({ expected: z.string(), found: z.string().nullable() }),
      durationMs: z.number().nullable().describe('How long the table check took; null when no check ran.'),
      checks: z.array(z.object({ key: z.string(), outcome: z.enum(CHECK_OUTCOMES), detail: z.string() })),
    }),
    authorities: z.array(z.object({ key: z.enum(FAIL_CLOSED_AUTHORITIES), status: z.literal('FAIL_CLOSED'), reason: z.string() })),
    productionAuthorityCreated: z.literal(false),
    links: z.record(z.string(), Url),
    disclosure: MinimalDisclosure,
  }),
  'Schema and persistence readiness, checked when asked; signing, custody, treasury, settlement and regulatory authority stay fail-closed.',
);
export type ProductionFoundations = z.infer<typeof ProductionFoundations>;

export const HtmlPage = component('HtmlPage', z.string(), 'A server-rendered HTML page (no script; strict Content-Security-Policy).');
