import { ACTIVATION_GATE_SETTINGS, ACTIVATION_SETTING_NAMES, type ActivationGateKey, type ActivationSettingName } from '../../contract/activation-settings';
import type { ActivationReadiness, ProductionFoundations } from '../../contract/schemas/surfaces';
import { CATALOGUE_DISCLOSURE } from './disclosure';

type Env = Record<string, string | undefined>;

/** Why a configured table did not answer. */
export type TableFailure = 'UNREACHABLE' | 'TABLE_NOT_FOUND' | 'ACCESS_DENIED' | 'UNEXPECTED_ERROR';

/**
 * What one look at the table found, as the readiness rules read it (functions/store/table-meta.ts
 * makes it). Never carries the table name, endpoint or an SDK message.
 */
export type TableInspection =
  | { configured: false }
  | { configured: true; reachable: false; failure: TableFailure; errorName: string; durationMs: number }
  | { configured: true; reachable: true; schemaVersion: string | null; durationMs: number };
type SettingStatus = ActivationReadiness['gates'][number]['settings'][number]['status'];
type GateStatus = ActivationReadiness['gates'][number]['status'];

interface SettingDefinition {
  name: ActivationSettingName;
  expects: string;
  isValid(value: string): boolean;
}

const httpsUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '' && url.hash === '';
  } catch {
    return false;
  }
};
/** An OAuth client identifier: visible ASCII, no spaces (RFC 6749 VSCHAR), bounded. */
const clientId = (value: string): boolean => /^[\x21-\x7e]{1,255}$/.test(value);
/** A reference to a secret held in AWS Secrets Manager: the service never reads nor shows the secret. */
const secretArn = (value: string): boolean => /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/.test(value);

interface GateDefinition {
  key: ActivationGateKey;
  name: string;
  standard: string;
  explanation: string;
  settings: SettingDefinition[];
}

/**
 * The identity and wallet-protocol activation gates and the settings each needs (documented in
 * docs/surfaces.md). Configuring a gate makes it ready to activate; it does not activate it:
 * live authorization, credential and wallet transport endpoints stay gated in this service.
 */
export const ACTIVATION_GATES: readonly GateDefinition[] = [
  {
    key: 'IDENTITY_OIDC',
    name: 'OpenID Connect identity federation',
    standard: 'OIDC_FEDERATION',
    explanation: 'Relying-party settings for an OpenID Connect provider. The client secret is referenced by a Secrets Manager ARN and never read here.',
    settings: [
      { name: 'OIDC_ISSUER_URL', expects: 'https URL of the OpenID Provider issuer', isValid: httpsUrl },
      { name: 'OIDC_CLIENT_ID', expects: 'OAuth client identifier (visible ASCII, no spaces)', isValid: clientId },
      { name: 'OIDC_CLIENT_SECRET_ARN', expects: 'ARN of an AWS Secrets Manager secret', isValid: secretArn },
    ],
  },
  {
    key: 'WALLET_OPENID4VCI',
    name: 'OpenID for Verifiable Credential Issuance',
    standard: 'OPENID4VCI_ISSUANCE',
    explanation: 'Metadata foundations for a credential issuer. Live authorization and credential endpoints are gated.',
    settings: [
      { name: 'OPENID4VCI_CREDENTIAL_ISSUER_URL', expects: 'https URL of the credential issuer identifier', isValid: httpsUrl },
      { name: 'OPENID4VCI_AUTHORIZATION_SERVER_URL', expects: 'https URL of the authorization server', isValid: httpsUrl },
    ],
  },
  {
    key: 'WALLET_OPENID4VP',
    name: 'OpenID for Verifiable Presentations',
    standard: 'OPENID4VP_PRESENTATION',
    explanation: 'Verifier settings for presentation requests. Live wallet transport is gated.',
    settings: [
      { name: 'OPENID4VP_VERIFIER_CLIENT_ID', expects: 'verifier client identifier (visible ASCII, no spaces)', isValid: clientId },
      { name: 'OPENID4VP_RESPONSE_URI', expects: 'https URL the wallet posts its response to', isValid: httpsUrl },
    ],
  },
];

/** Every environment variable the readiness reports look at (published by the contract). */
export { ACTIVATION_SETTING_NAMES };

/** The gates here define exactly the settings the contract publishes for them. */
for (const gate of ACTIVATION_GATES) {
  const published: readonly string[] = ACTIVATION_GATE_SETTINGS[gate.key];
  if (gate.settings.map((s) => s.name).join() !== published.join()) throw new Error(`activation gate ${gate.key} disagrees with the contract's settings`);
}

function settingStatus(value: string | undefined, setting: SettingDefinition): SettingStatus {
  if (value === undefined || value.trim() === '') return 'NOT_CONFIGURED';
  return setting.isValid(value.trim()) ? 'CONFIGURED' : 'INVALID';
}

function gateStatus(statuses: SettingStatus[]): GateStatus {
  if (statuses.includes('INVALID')) return 'MISCONFIGURED';
  return statuses.every((s) => s === 'CONFIGURED') ? 'CONFIGURED' : 'NOT_CONFIGURED';
}

/** Reads presence and form of each setting; a value never leaves this function. */
export function buildActivationReadiness(env: Env, checkedAt: string, links: Record<string, string>): ActivationReadiness {
  const gates = ACTIVATION_GATES.map((gate) => {
    const settings = gate.settings.map((s) => ({ name: s.name, expects: s.expects, status: settingStatus(env[s.name], s) }));
    return {
      key: gate.key,
      name: gate.name,
      standard: gate.standard,
      status: gateStatus(settings.map((s) => s.status)),
      liveActivation: 'GATED' as const,
      explanation: gate.explanation,
      settings,
    };
  });
  return {
    schemaVersion: 'svc.activation-readiness.v1',
    checkedAt,
    liveActivation: 'GATED',
    gates,
    secretsDisclosed: false,
    links,
    disclosure: CATALOGUE_DISCLOSURE,
  };
}

/**
 * Authorities this public, read-only service never holds. No setting changes them: they are
 * reported fail-closed by construction.
 */
export const FAIL_CLOSED_AUTHORITIES: ProductionFoundations['authorities'] = [
  { key: 'SIGNING', status: 'FAIL_CLOSED', reason: 'No credential, transaction or attestation is signed with production authority. Ledger checkpoints attest log integrity only.' },
  { key: 'CUSTODY', status: 'FAIL_CLOSED', reason: 'No asset, key or credential is held in custody on behalf of anyone.' },
  { key: 'TREASURY', status: 'FAIL_CLOSED', reason: 'No funds are held, moved or reserved.' },
  { key: 'SETTLEMENT', status: 'FAIL_CLOSED', reason: 'No payment is captured, settled or refunded; payment providers are never called.' },
  { key: 'REGULATORY_AUTHORITY', status: 'FAIL_CLOSED', reason: 'Regulatory identifiers resolve to their source references; no regulatory status is asserted or granted.' },
];

type Check = ProductionFoundations['persistence']['checks'][number];
type PersistenceStatus = ProductionFoundations['persistence']['status'];

const FAILURE_DETAIL: Record<string, string> = {
  UNREACHABLE: 'The table did not answer within the store timeout (connection refused, reset or timed out).',
  TABLE_NOT_FOUND: 'The configured table does not exist.',
  ACCESS_DENIED: 'The function is not allowed to read the table.',
  UNEXPECTED_ERROR: 'The table answered with an unexpected error.',
};

/** The persistence checks from one inspection of the table. Pure: the inspection is its input. */
export function persistenceReadiness(inspection: TableInspection, expectedSchemaVersion: string): ProductionFoundations['persistence'] {
  const skipped = (key: string, why: string): Check => ({ key, outcome: 'SKIPPED', detail: why });
  if (!inspection.configured) {
    return {
      status: 'NOT_CONFIGURED',
      schemaVersion: { expected: expectedSchemaVersion, found: null },
      durationMs: null,
      checks: [
        { key: 'TABLE_CONFIGURED', outcome: 'FAIL', detail: 'No table is configured for this deployment (TABLE_NAME is not set).' },
        skipped('TABLE_REACHABLE', 'No table to reach.'),
        skipped('SCHEMA_VERSION', 'No table to read.'),
      ],
    };
  }
  const configured: Check = { key: 'TABLE_CONFIGURED', outcome: 'PASS', detail: 'A table is configured.' };
  if (!inspection.reachable) {
    return {
      status: inspection.failure,
      schemaVersion: { expected: expectedSchemaVersion, found: null },
      durationMs: inspection.durationMs,
      checks: [configured, { key: 'TABLE_REACHABLE', outcome: 'FAIL', detail: FAILURE_DETAIL[inspection.failure] }, skipped('SCHEMA_VERSION', 'The table did not answer.')],
    };
  }
  const found = inspection.schemaVersion;
  const status: PersistenceStatus = found === null ? 'SCHEMA_VERSION_MISSING' : found === expectedSchemaVersion ? 'READY' : 'SCHEMA_VERSION_MISMATCH';
  const schemaDetail =
    status === 'READY'
      ? `The table holds schema version ${found}, as expected.`
      : status === 'SCHEMA_VERSION_MISSING'
        ? 'The table holds no schema version: no load into it has completed (a load marks the table only once every record is written; one stopped part-way, run again, finishes it).'
        : `The table holds schema version ${found}; this release expects ${expectedSchemaVersion}.`;
  return {
    status,
    schemaVersion: { expected: expectedSchemaVersion, found },
    durationMs: inspection.durationMs,
    checks: [
      configured,
      { key: 'TABLE_REACHABLE', outcome: 'PASS', detail: 'The table answered.' },
      { key: 'SCHEMA_VERSION', outcome: status === 'READY' ? 'PASS' : 'FAIL', detail: schemaDetail },
    ],
  };
}

export function buildProductionFoundations(
  inspection: TableInspection,
  expectedSchemaVersion: string,
  checkedAt: string,
  links: Record<string, string>,
): ProductionFoundations {
  const persistence = persistenceReadiness(inspection, expectedSchemaVersion);
  return {
    schemaVersion: 'svc.production-foundations.v1',
    checkedAt,
    status: persistence.status === 'READY' ? 'READY' : 'NOT_READY',
    persistence,
    authorities: FAIL_CLOSED_AUTHORITIES,
    productionAuthorityCreated: false,
    links,
    disclosure: CATALOGUE_DISCLOSURE,
  };
}
