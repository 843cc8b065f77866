import { BitstringStatusListCredential, CredentialVerification, PortableCredential } from '../../functions/contract/schemas/credentials';
import type { CredentialLifecycleState } from '../../functions/contract/schemas/credentials';
import type { CredentialContent, CredentialWindowEntry, StatusListContent } from '../../functions/domain/credentials/model';
import { portableCredential, statusListCredential } from '../../functions/domain/credentials/projection';
import {
  credentialStatus,
  humanDuration,
  statusCheck,
  statusFreshness,
  timeStanding,
  verifyCredential,
  type TimeStanding,
} from '../../functions/domain/credentials/verification';

const BASE = 'https://trust.example.org';
const NOW = '2026-06-01T12:00:00.000Z';
const CONFIRMED = { confirmed: true, reason: 'Inclusion proof and signed checkpoint verified.' };
const UNCONFIRMED = { confirmed: false, reason: 'No ledger evidence is held for this record.' };
const SECRET = { subject: { name: 'Jane Roe (fictitious)', email: 'jane@example.invalid' } };

function content(overrides: Partial<CredentialContent> = {}): CredentialContent {
  return {
    credentialId: 'CRED-T-1',
    credentialType: 'MembershipCredential',
    title: 'Membership CRED-T-1',
    issuer: 'did:web:issuer.example.org',
    validFrom: '2026-01-01T00:00:00.000Z',
    validUntil: '2027-01-01T00:00:00.000Z',
    subject: { type: 'Member', claims: { membershipLevel: 'GOLD' } },
    status: 'ACTIVE',
    statusSince: '2026-01-01T00:00:00.000Z',
    statusList: 'test',
    statusSlots: [
      { statusPurpose: 'suspension', listId: 'test-suspension', statusListIndex: 42 },
      { statusPurpose: 'revocation', listId: 'test-revocation', statusListIndex: 42 },
    ],
    freshnessSeconds: 3600,
    version: 1,
    ...overrides,
  };
}

function entry(c: CredentialContent, lastConfirmedAt = '2026-06-01T11:30:00.000Z'): CredentialWindowEntry {
  return {
    at: lastConfirmedAt,
    entry: { at: lastConfirmedAt, type: 'AUTHORITY_OBSERVED', status: c.status, previousStatus: c.status, source: 'SYNC' },
    view: { status: c.status, lastConfirmedAt },
    head: { kind: 'CREDENTIAL', reference: c.credentialId, version: c.version, content: c, evidence: { version: c.version }, restricted: SECRET },
  };
}

describe('validity window', () => {
  const window = { validFrom: '2026-01-01T00:00:00.000Z', validUntil: '2026-12-31T23:59:59.000Z' };
  it('includes both bounds (VC 2.0: earliest and latest instant of validity)', () => {
    expect(timeStanding(window, window.validFrom)).toBe('WITHIN');
    expect(timeStanding(window, window.validUntil)).toBe('WITHIN');
    expect(timeStanding(window, '2025-12-31T23:59:59.999Z')).toBe('NOT_YET_VALID');
    expect(timeStanding(window, '2026-12-31T23:59:59.001Z')).toBe('EXPIRED');
    expect(timeStanding({ ...window, validUntil: null }, '2999-01-01T00:00:00Z')).toBe('WITHIN');
  });
});

describe('status precedence', () => {
  const cases: [CredentialLifecycleState, TimeStanding, string][] = [
    ['REVOKED', 'EXPIRED', 'REVOKED'],
    ['REVOKED', 'NOT_YET_VALID', 'REVOKED'],
    ['REVOKED', 'WITHIN', 'REVOKED'],
    ['SUSPENDED', 'EXPIRED', 'EXPIRED'],
    ['ACTIVE', 'EXPIRED', 'EXPIRED'],
    ['SUSPENDED', 'NOT_YET_VALID', 'SUSPENDED'],
    ['SUSPENDED', 'WITHIN', 'SUSPENDED'],
    ['ACTIVE', 'NOT_YET_VALID', 'NOT_YET_VALID'],
    ['ACTIVE', 'WITHIN', 'ACTIVE'],
  ];
  it.each(cases)('%s and %s answer %s', (lifecycle, standing, expected) => {
    expect(credentialStatus(lifecycle, standing)).toBe(expected);
  });
});

describe('status check and freshness', () => {
  it('is fresh up to and including the freshness window', () => {
    const c = content();
    expect(statusFreshness(c, { status: 'ACTIVE', lastConfirmedAt: '2026-06-01T11:00:00.000Z' }, NOW)).toMatchObject({ ageSeconds: 3600, fresh: true });
    expect(statusFreshness(c, { status: 'ACTIVE', lastConfirmedAt: '2026-06-01T10:59:59.000Z' }, NOW)).toMatchObject({ ageSeconds: 3601, fresh: false });
  });

  it('passes an active, fresh status; does not confirm an active, stale one; fails a withdrawn one whatever its age', () => {
    const c = content();
    const fresh = statusFreshness(c, { status: 'ACTIVE', lastConfirmedAt: '2026-06-01T11:50:00.000Z' }, NOW);
    expect(statusCheck(fresh)).toMatchObject({ outcome: 'PASS', valid: true });
    expect(statusCheck(fresh).reason).toMatch(/10 minutes ago/);
    const stale = statusFreshness(c, { status: 'ACTIVE', lastConfirmedAt: '2026-05-29T12:00:00.000Z' }, NOW);
    expect(statusCheck(stale)).toMatchObject({ outcome: 'NOT_CONFIRMED', valid: false });
    expect(statusCheck(stale).reason).toMatch(/3 days ago.*beyond its 1 hour freshness window/);
    const revokedLongAgo = statusFreshness(content({ status: 'REVOKED' }), { status: 'REVOKED', lastConfirmedAt: '2020-01-01T00:00:00.000Z' }, NOW);
    expect(statusCheck(revokedLongAgo)).toMatchObject({ outcome: 'FAIL', valid: false });
    expect(statusCheck(revokedLongAgo).reason).toMatch(/revoked.*permanent/);
    const suspended = statusFreshness(content({ status: 'SUSPENDED' }), { status: 'SUSPENDED', lastConfirmedAt: '2026-06-01T11:59:00.000Z' }, NOW);
    expect(statusCheck(suspended)).toMatchObject({ outcome: 'FAIL' });
    expect(statusCheck(suspended).reason).toMatch(/suspended.*can be lifted/);
  });

  it('says durations the way people do', () => {
    expect([0, 1, 59, 60, 61, 3599, 3600, 7200, 86_399, 86_400, 3 * 86_400 + 5].map(humanDuration)).toEqual([
      '0 seconds', '1 second', '59 seconds', '1 minute', '1 minute', '59 minutes', '1 hour', '2 hours', '23 hours', '1 day', '3 days',
    ]);
  });
});

describe('verifyCredential', () => {
  it('verifies only when integrity, validity window and status all pass', () => {
    const result = verifyCredential({ newest: entry(content()), evaluatedAt: NOW, integrity: CONFIRMED, baseUrl: BASE });
    expect(CredentialVerification.safeParse(result).success).toBe(true);
    expect(result).toMatchObject({ verified: true, status: 'ACTIVE', problemDetails: [], issuer: 'did:web:issuer.example.org', evaluatedAt: NOW });
    expect(result.checks.map((c) => [c.check, c.outcome])).toEqual([
      ['integrity', 'PASS'],
      ['validityWindow', 'PASS'],
      ['status', 'PASS'],
    ]);
    expect(result.summary).toMatch(/^Verified/);
  });

  it('reports every check that did not pass, each with its reason, and never verifies on unconfirmed integrity', () => {
    const expired = content({ validUntil: '2026-05-01T00:00:00.000Z', status: 'SUSPENDED' });
    const result = verifyCredential({ newest: entry(expired), evaluatedAt: NOW, integrity: UNCONFIRMED, baseUrl: BASE });
    expect(result.verified).toBe(false);
    expect(result.status).toBe('EXPIRED');
    expect(result.checks.map((c) => c.outcome)).toEqual(['NOT_CONFIRMED', 'FAIL', 'FAIL']);
    expect(result.problemDetails.map((p) => p.type)).toEqual([
      'urn:svc:credential-check:integrity:not-confirmed',
      'urn:svc:credential-check:validityWindow:fail',
      'urn:svc:credential-check:status:fail',
    ]);
    expect(result.problemDetails.map((p) => p.detail)).toEqual(result.checks.map((c) => c.reason));
    expect(result.checks[0].reason).toBe(UNCONFIRMED.reason);
    expect(result.summary).toMatch(/^Not verified \(expired\): integrity not confirmed, validityWindow failed, status failed\.$/);
  });

  it('answers NOT_YET_VALID before validFrom, with a reason naming the instant', () => {
    const early = content({ validFrom: '2026-07-01T00:00:00.000Z' });
    const result = verifyCredential({ newest: entry(early), evaluatedAt: NOW, integrity: CONFIRMED, baseUrl: BASE });
    expect(result).toMatchObject({ verified: false, status: 'NOT_YET_VALID' });
    expect(result.checks[1].reason).toContain('2026-07-01T00:00:00.000Z');
  });

  it('points at the published lists with absolute URLs, in a fixed purpose order', () => {
    const result = verifyCredential({ newest: entry(content()), evaluatedAt: NOW, integrity: CONFIRMED, baseUrl: BASE });
    expect(result.credentialStatus).toEqual([
      {
        id: `${BASE}/v1/status-lists/test-revocation#42`,
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListIndex: '42',
        statusListCredential: `${BASE}/v1/status-lists/test-revocation`,
      },
      {
        id: `${BASE}/v1/status-lists/test-suspension#42`,
        type: 'BitstringStatusListEntry',
        statusPurpose: 'suspension',
        statusListIndex: '42',
        statusListCredential: `${BASE}/v1/status-lists/test-suspension`,
      },
    ]);
    expect(result.links.portableCredential).toBe(`${BASE}/v1/portable-credentials/CRED-T-1/vc.json`);
  });

  it('never shows restricted data', () => {
    const text = JSON.stringify(verifyCredential({ newest: entry(content()), evaluatedAt: NOW, integrity: CONFIRMED, baseUrl: BASE }));
    expect(text).not.toContain('Jane Roe');
    expect(text).not.toContain('jane@example.invalid');
    expect(text).not.toContain('restricted');
  });
});

describe('W3C VC 2.0 projection', () => {
  it('is a VC 2.0 document: v2 context first, VerifiableCredential type, issuer, validity, status entries, no proof', () => {
    const vc = portableCredential(content(), BASE);
    expect(PortableCredential.safeParse(vc).success).toBe(true);
    expect(vc['@context'][0]).toBe('https://www.w3.org/ns/credentials/v2');
    expect(vc.type).toEqual(['VerifiableCredential', 'MembershipCredential']);
    expect(vc).toMatchObject({ issuer: 'did:web:issuer.example.org', validFrom: '2026-01-01T00:00:00.000Z', validUntil: '2027-01-01T00:00:00.000Z' });
    expect(vc).not.toHaveProperty('proof');
    expect(vc.description).toMatch(/^Unsigned/);
    expect(vc.credentialStatus.map((e) => e.statusPurpose)).toEqual(['revocation', 'suspension']);
    expect(vc.credentialStatus.every((e) => e.id !== e.statusListCredential)).toBe(true);
  });

  it('carries public claims only: no subject identifier, nothing restricted', () => {
    const vc = portableCredential(content(), BASE);
    expect(vc.credentialSubject).toEqual({ type: 'Member', membershipLevel: 'GOLD' });
    expect(JSON.stringify(vc)).not.toMatch(/Jane Roe|jane@example\.invalid/);
  });

  it('omits validUntil when the credential has no end date', () => {
    expect(portableCredential(content({ validUntil: null }), BASE)).not.toHaveProperty('validUntil');
  });
});

describe('BitstringStatusListCredential', () => {
  it('has the shape the W3C Recommendation requires', () => {
    const list: StatusListContent = { listId: 'test-revocation', statusPurpose: 'revocation', issuer: 'did:web:issuer.example.org', entries: 131_072, encodedList: 'uH4sI', publishedAt: NOW, version: 3 };
    const vc = statusListCredential({ kind: 'STATUS_LIST', reference: 'status-list/test-revocation', version: 3, content: list, evidence: null }, BASE);
    expect(BitstringStatusListCredential.safeParse(vc).success).toBe(true);
    expect(vc).toMatchObject({
      '@context': ['https://www.w3.org/ns/credentials/v2', `${BASE}/v1/contexts/trust/v1.json`],
      id: `${BASE}/v1/status-lists/test-revocation`,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: 'did:web:issuer.example.org',
      validFrom: NOW,
      credentialSubject: { id: `${BASE}/v1/status-lists/test-revocation#list`, type: 'BitstringStatusList', statusPurpose: 'revocation', encodedList: 'uH4sI', ttl: 300_000 },
    });
    expect(vc).not.toHaveProperty('proof');
    // The version exactly as logged rides along, for verifiers to re-hash (integrity only: the list is unsigned).
    expect(vc.logged).toEqual({ record: list, evidence: null });
  });
});
