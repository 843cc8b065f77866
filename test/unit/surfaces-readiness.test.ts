import fc from 'fast-check';
import { ActivationReadiness, FAIL_CLOSED_AUTHORITIES as AUTHORITY_KEYS, ProductionFoundations } from '../../functions/contract/schemas/surfaces';
import { ACTIVATION_GATES, ACTIVATION_SETTING_NAMES, buildActivationReadiness, buildProductionFoundations, persistenceReadiness } from '../../functions/domain/surfaces/readiness';
import { TABLE_SCHEMA_VERSION } from '../../functions/store/layout';
import type { TableInspection } from '../../functions/domain/surfaces/readiness';

const NOW = '2026-05-01T12:00:00.000Z';
const LINKS = { productionFoundations: 'https://svc.example/v1/activation-readiness/production-foundations' };

const FULL_ENV = {
  OIDC_ISSUER_URL: 'https://login.example.org/realms/main',
  OIDC_CLIENT_ID: 'trust-service',
  OIDC_CLIENT_SECRET_ARN: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:oidc-client-AbCdEf',
  OPENID4VCI_CREDENTIAL_ISSUER_URL: 'https://issuer.example.org',
  OPENID4VCI_AUTHORIZATION_SERVER_URL: 'https://auth.example.org',
  OPENID4VP_VERIFIER_CLIENT_ID: 'x509_san_dns:verifier.example.org',
  OPENID4VP_RESPONSE_URI: 'https://verifier.example.org/response',
};

const gate = (doc: ActivationReadiness, key: string) => doc.gates.find((g) => g.key === key)!;

describe('activation readiness', () => {
  it('reports every gate NOT_CONFIGURED when nothing is set, and live activation GATED', () => {
    const doc = buildActivationReadiness({}, NOW, LINKS);
    expect(ActivationReadiness.parse(doc)).toEqual(doc);
    expect(doc.gates.map((g) => g.key)).toEqual(['IDENTITY_OIDC', 'WALLET_OPENID4VCI', 'WALLET_OPENID4VP']);
    for (const g of doc.gates) {
      expect(g.status).toBe('NOT_CONFIGURED');
      expect(g.liveActivation).toBe('GATED');
      expect(g.settings.every((s) => s.status === 'NOT_CONFIGURED')).toBe(true);
    }
    expect(doc.secretsDisclosed).toBe(false);
  });

  it('reports CONFIGURED when every setting is present and well formed, and never shows a value', () => {
    const doc = buildActivationReadiness(FULL_ENV, NOW, LINKS);
    expect(doc.gates.map((g) => g.status)).toEqual(['CONFIGURED', 'CONFIGURED', 'CONFIGURED']);
    const text = JSON.stringify(doc);
    for (const value of Object.values(FULL_ENV)) expect(text).not.toContain(value);
    expect(text).not.toContain('example.org');
  });

  it('a partly configured gate is NOT_CONFIGURED; a malformed setting makes it MISCONFIGURED', () => {
    const partial = buildActivationReadiness({ OIDC_ISSUER_URL: FULL_ENV.OIDC_ISSUER_URL, OIDC_CLIENT_ID: '   ' }, NOW, LINKS);
    expect(gate(partial, 'IDENTITY_OIDC').status).toBe('NOT_CONFIGURED');
    expect(gate(partial, 'IDENTITY_OIDC').settings.map((s) => s.status)).toEqual(['CONFIGURED', 'NOT_CONFIGURED', 'NOT_CONFIGURED']);

    const malformed = buildActivationReadiness({ ...FULL_ENV, OIDC_ISSUER_URL: 'http://login.example.org', OPENID4VP_RESPONSE_URI: 'https://user:pw@verifier.example.org/r', OIDC_CLIENT_SECRET_ARN: 'the-secret-itself' }, NOW, LINKS);
    expect(gate(malformed, 'IDENTITY_OIDC').status).toBe('MISCONFIGURED');
    expect(gate(malformed, 'IDENTITY_OIDC').settings.map((s) => s.status)).toEqual(['INVALID', 'CONFIGURED', 'INVALID']);
    expect(gate(malformed, 'WALLET_OPENID4VP').status).toBe('MISCONFIGURED');
    expect(gate(malformed, 'WALLET_OPENID4VCI').status).toBe('CONFIGURED');
    expect(JSON.stringify(malformed)).not.toMatch(/the-secret-itself|user:pw/);
  });

  it('never echoes any value of any setting, whatever it is', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ACTIVATION_SETTING_NAMES), fc.string({ minLength: 8 }), (name, value) => {
        const text = JSON.stringify(buildActivationReadiness({ [name]: value }, NOW, LINKS));
        const known = JSON.stringify(buildActivationReadiness({}, NOW, LINKS));
        // A value can only "appear" if it is a substring of the fixed wording that is there anyway.
        if (!known.includes(value)) expect(text).not.toContain(value);
      }),
    );
  });

  it('names every setting it reads (the documented environment variables)', () => {
    expect(ACTIVATION_SETTING_NAMES).toEqual(Object.keys(FULL_ENV));
    expect(ACTIVATION_GATES.map((g) => g.standard)).toEqual(['OIDC_FEDERATION', 'OPENID4VCI_ISSUANCE', 'OPENID4VP_PRESENTATION']);
  });
});

describe('production foundations', () => {
  const inspections: Array<[string, TableInspection, string, string[]]> = [
    ['not configured', { configured: false }, 'NOT_CONFIGURED', ['FAIL', 'SKIPPED', 'SKIPPED']],
    ['unreachable', { configured: true, reachable: false, failure: 'UNREACHABLE', errorName: 'ECONNREFUSED', durationMs: 3 }, 'UNREACHABLE', ['PASS', 'FAIL', 'SKIPPED']],
    ['missing table', { configured: true, reachable: false, failure: 'TABLE_NOT_FOUND', errorName: 'ResourceNotFoundException', durationMs: 2 }, 'TABLE_NOT_FOUND', ['PASS', 'FAIL', 'SKIPPED']],
    ['denied', { configured: true, reachable: false, failure: 'ACCESS_DENIED', errorName: 'AccessDeniedException', durationMs: 2 }, 'ACCESS_DENIED', ['PASS', 'FAIL', 'SKIPPED']],
    ['not loaded', { configured: true, reachable: true, schemaVersion: null, durationMs: 1 }, 'SCHEMA_VERSION_MISSING', ['PASS', 'PASS', 'FAIL']],
    ['older schema', { configured: true, reachable: true, schemaVersion: 'svc.table.v0', durationMs: 1 }, 'SCHEMA_VERSION_MISMATCH', ['PASS', 'PASS', 'FAIL']],
    ['ready', { configured: true, reachable: true, schemaVersion: TABLE_SCHEMA_VERSION, durationMs: 1 }, 'READY', ['PASS', 'PASS', 'PASS']],
  ];

  it.each(inspections)('%s -> %s', (_name, inspection, status, outcomes) => {
    const doc = buildProductionFoundations(inspection, TABLE_SCHEMA_VERSION, NOW, LINKS);
    expect(ProductionFoundations.parse(doc)).toEqual(doc);
    expect(doc.persistence.status).toBe(status);
    expect(doc.status).toBe(status === 'READY' ? 'READY' : 'NOT_READY');
    expect(doc.persistence.checks.map((c) => c.key)).toEqual(['TABLE_CONFIGURED', 'TABLE_REACHABLE', 'SCHEMA_VERSION']);
    expect(doc.persistence.checks.map((c) => c.outcome)).toEqual(outcomes);
    expect(doc.persistence.schemaVersion.expected).toBe(TABLE_SCHEMA_VERSION);
    // The SDK error name is for logs, not for the public report.
    expect(JSON.stringify(doc)).not.toMatch(/ECONNREFUSED|Exception/);
  });

  it('keeps signing, custody, treasury, settlement and regulatory authority fail-closed in every case', () => {
    for (const [, inspection] of inspections) {
      const doc = buildProductionFoundations(inspection, TABLE_SCHEMA_VERSION, NOW, LINKS);
      expect(doc.authorities.map((a) => a.key)).toEqual([...AUTHORITY_KEYS]);
      expect(doc.authorities.every((a) => a.status === 'FAIL_CLOSED')).toBe(true);
      expect(doc.productionAuthorityCreated).toBe(false);
    }
  });

  it('reports the schema version found, and what was expected', () => {
    expect(persistenceReadiness({ configured: true, reachable: true, schemaVersion: 'svc.table.v0', durationMs: 4 }, 'svc.table.v1')).toMatchObject({
      schemaVersion: { expected: 'svc.table.v1', found: 'svc.table.v0' },
      durationMs: 4,
    });
  });
});
