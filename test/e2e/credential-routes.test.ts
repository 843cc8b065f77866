import { gunzipSync } from 'node:zlib';
import { ErrorResponse } from '../../functions/contract/schemas/common';
import { BitstringStatusListCredential, CredentialVerification, PortableCredential } from '../../functions/contract/schemas/credentials';
import {
  DEMO_CREDENTIAL_EXPECTATIONS,
  DEMO_CREDENTIAL_RESTRICTED_VALUES,
  DEMO_CREDENTIALS,
  DEMO_ISSUER,
  DEMO_STATUS_LISTS,
} from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS, DEMO_RESTRICTED_VALUES } from '../../fixtures/demo';
import type { LocalService } from '../../lib/local/service';
import { getJson, startTestService } from '../support/local';

const ANCHOR = new Date(Math.floor(Date.now() / 60_000) * 60_000);
const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(ANCHOR.getTime() - n * DAY).toISOString();
const W3C_RETRIEVAL_ERROR = 'https://www.w3.org/ns/credentials/status-list#STATUS_RETRIEVAL_ERROR';

let service: LocalService;
beforeAll(async () => {
  service = await startTestService(ANCHOR);
});
afterAll(async () => {
  await service.close();
});

const get = (p: string) => getJson(`${service.url}${p}`);

/** The list's bit at an index, decoded here from the specification alone (multibase u, base64url, GZIP, left-most bit first). */
function bitOf(list: { credentialSubject: { encodedList: string } }, index: number): 0 | 1 {
  const encoded = list.credentialSubject.encodedList;
  expect(encoded.startsWith('u')).toBe(true);
  const bits = gunzipSync(Buffer.from(encoded.slice(1), 'base64url'));
  expect(bits.length * 8).toBeGreaterThanOrEqual(131_072);
  return ((bits[Math.floor(index / 8)] >> (7 - (index % 8))) & 1) as 0 | 1;
}

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(ErrorResponse.safeParse(res.body).success).toBe(true);
  expect(res.body).toMatchObject({ status, code });
  expect(JSON.stringify(res.body)).not.toMatch(/\bat \S+:\d+|\/work\/|node_modules|Error:|\.ts\b/);
}

function expectNoRestricted(body: unknown) {
  const text = JSON.stringify(body);
  for (const value of [...DEMO_CREDENTIAL_RESTRICTED_VALUES, ...DEMO_RESTRICTED_VALUES]) expect(text).not.toContain(value);
}

describe('the three routes agree for every demo credential', () => {
  it.each(Object.entries(DEMO_CREDENTIALS) as [keyof typeof DEMO_CREDENTIALS, string][])('%s (%s)', async (name, id) => {
    const expected = DEMO_CREDENTIAL_EXPECTATIONS[name];

    const verification = await get(`/v1/credentials/verify/${id}`);
    expect(verification.status).toBe(200);
    expect(verification.headers.get('content-type')).toMatch(/^application\/json/);
    expect(CredentialVerification.safeParse(verification.body).success).toBe(true);
    const result = verification.body;
    expect(result).toMatchObject({ schemaVersion: 'svc.credential-verification.v1', credentialId: id, status: expected.status, issuer: DEMO_ISSUER });
    expect(result.statusFreshness).toMatchObject({ lifecycleState: expected.lifecycleState, fresh: expected.fresh });
    expect(result.checks.map((c: any) => c.check)).toEqual(['integrity', 'validityWindow', 'status']);
    expect(result.checks.slice(1).map((c: any) => c.outcome)).toEqual(expected.checks);
    expect(result.verified).toBe(result.checks.every((c: any) => c.outcome === 'PASS'));
    if (result.verified) expect(result.status).toBe('ACTIVE');
    expect(result.problemDetails).toHaveLength(result.checks.filter((c: any) => c.outcome !== 'PASS').length);
    expect(Date.parse(result.evaluatedAt)).toBeGreaterThanOrEqual(ANCHOR.getTime());
    expect(result.disclosure).toMatchObject({ containsCustomerPii: false, containsPaymentAccountData: false });
    expectNoRestricted(result);

    const portable = await getJson(result.links.portableCredential);
    expect(portable.status).toBe(200);
    expect(PortableCredential.safeParse(portable.body).success).toBe(true);
    const vc = portable.body;
    expect(vc['@context'][0]).toBe('https://www.w3.org/ns/credentials/v2');
    expect(vc.type).toContain('VerifiableCredential');
    expect(vc).not.toHaveProperty('proof');
    expect(vc.description).toMatch(/^Unsigned/);
    expect(vc.credentialSubject).not.toHaveProperty('id');
    expect(vc.issuer).toBe(result.issuer);
    expect(vc.validFrom).toBe(result.validityWindow.validFrom);
    expect(vc.validUntil ?? null).toBe(result.validityWindow.validUntil);
    expect(vc.credentialStatus).toEqual(result.credentialStatus);
    expectNoRestricted(vc);

    // Follow the VC's own links to the published lists and read this credential's bits there.
    expect(vc.credentialStatus.map((e: any) => e.statusPurpose)).toEqual(['revocation', 'suspension']);
    for (const entry of vc.credentialStatus) {
      expect(entry.statusListCredential.startsWith(`${service.url}/v1/status-lists/`)).toBe(true);
      const list = await getJson(entry.statusListCredential);
      expect(list.status).toBe(200);
      expect(BitstringStatusListCredential.safeParse(list.body).success).toBe(true);
      expect(list.body.id).toBe(entry.statusListCredential);
      expect(list.body.type).toEqual(expect.arrayContaining(['VerifiableCredential', 'BitstringStatusListCredential']));
      expect(list.body.credentialSubject.statusPurpose).toBe(entry.statusPurpose);
      expect(list.body.issuer).toBe(vc.issuer);
      const bit = bitOf(list.body, Number(entry.statusListIndex));
      const withdrawnForPurpose = entry.statusPurpose === 'revocation' ? 'REVOKED' : 'SUSPENDED';
      expect(bit).toBe(result.statusFreshness.lifecycleState === withdrawnForPurpose ? 1 : 0);
    }
  });
});

describe('GET /v1/credentials/verify/{claimId}', () => {
  it('explains each check in words, and does not confirm a status last confirmed too long ago', async () => {
    const unconfirmed = (await get(`/v1/credentials/verify/${DEMO_CREDENTIALS.unconfirmed}`)).body;
    expect(unconfirmed.verified).toBe(false);
    expect(unconfirmed.checks[2]).toMatchObject({ check: 'status', outcome: 'NOT_CONFIRMED', valid: false });
    expect(unconfirmed.checks[2].reason).toMatch(/3 days ago/);
    const expired = (await get(`/v1/credentials/verify/${DEMO_CREDENTIALS.expired}`)).body;
    expect(expired.checks[1]).toMatchObject({ check: 'validityWindow', outcome: 'FAIL' });
    expect(expired.checks[1].reason).toMatch(/^Expired/);
    const revoked = (await get(`/v1/credentials/verify/${DEMO_CREDENTIALS.revoked}`)).body;
    expect(revoked.checks[2].reason).toContain(daysAgo(3));
  });

  it('answers 400 for an invalid claim identifier: characters, length bounds', async () => {
    for (const bad of ['ab', 'x'.repeat(129), 'CRED%202026', '-CRED-1', 'CRED%2F1', 'CR%C3%89D-1']) {
      expectProblem(await get(`/v1/credentials/verify/${bad}`), 400, 'INVALID_CLAIM_ID');
      expectProblem(await get(`/v1/portable-credentials/${bad}/vc.json`), 400, 'INVALID_CLAIM_ID');
    }
  });

  it('answers 404 for an unknown identifier, including a valid one at the length bound and a record of another kind', async () => {
    for (const missing of ['NO-SUCH-CREDENTIAL', 'x'.repeat(128), 'abc', DEMO_OBJECTS.current]) {
      expectProblem(await get(`/v1/credentials/verify/${missing}`), 404, 'NOT_FOUND');
      expectProblem(await get(`/v1/portable-credentials/${missing}/vc.json`), 404, 'NOT_FOUND');
    }
  });
});

describe('GET /v1/status-lists/{listId}', () => {
  const listAt = async (listId: string, timestamp?: string) => {
    const res = await get(`/v1/status-lists/${listId}${timestamp ? `?timestamp=${encodeURIComponent(timestamp)}` : ''}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const indexOf = async (id: string) => Number((await get(`/v1/credentials/verify/${id}`)).body.credentialStatus[0].statusListIndex);

  it('gives the list as it stood at ?timestamp=: bits set and cleared over time', async () => {
    const reinstated = await indexOf(DEMO_CREDENTIALS.reinstated);
    const revoked = await indexOf(DEMO_CREDENTIALS.revoked);
    expect(bitOf(await listAt(DEMO_STATUS_LISTS.suspension, daysAgo(31)), reinstated)).toBe(0);
    expect(bitOf(await listAt(DEMO_STATUS_LISTS.suspension, daysAgo(20)), reinstated)).toBe(1);
    expect(bitOf(await listAt(DEMO_STATUS_LISTS.suspension, daysAgo(5)), reinstated)).toBe(0);
    expect(bitOf(await listAt(DEMO_STATUS_LISTS.suspension), reinstated)).toBe(0);
    expect(bitOf(await listAt(DEMO_STATUS_LISTS.revocation, daysAgo(4)), revoked)).toBe(0);
    expect(bitOf(await listAt(DEMO_STATUS_LISTS.revocation, daysAgo(3)), revoked)).toBe(1);
    const past = await listAt(DEMO_STATUS_LISTS.suspension, daysAgo(20));
    expect(past.validFrom).toBe(daysAgo(30));
  });

  it('reads a timestamp with an offset as the same instant', async () => {
    const utc = new Date(ANCHOR.getTime() - 20 * DAY);
    const offset = new Date(utc.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    expect(await listAt(DEMO_STATUS_LISTS.suspension, offset)).toEqual(await listAt(DEMO_STATUS_LISTS.suspension, utc.toISOString()));
  });

  it('sets Cache-Control from the list ttl', async () => {
    const res = await get(`/v1/status-lists/${DEMO_STATUS_LISTS.revocation}`);
    expect(res.headers.get('cache-control')).toBe(`public, max-age=${res.body.credentialSubject.ttl / 1000}`);
  });

  it('reports a failed retrieval with the W3C STATUS_RETRIEVAL_ERROR type: unknown list, or before the first version', async () => {
    const unknown = await get('/v1/status-lists/no-such-list-revocation');
    expectProblem(unknown, 404, 'NOT_FOUND');
    expect(unknown.body.type).toBe(W3C_RETRIEVAL_ERROR);
    const early = await get(`/v1/status-lists/${DEMO_STATUS_LISTS.revocation}?timestamp=2001-01-01T00:00:00Z`);
    expectProblem(early, 404, 'NOT_FOUND');
    expect(early.body.type).toBe(W3C_RETRIEVAL_ERROR);
    const future = await get(`/v1/status-lists/${DEMO_STATUS_LISTS.revocation}?timestamp=${encodeURIComponent(new Date(Date.now() + DAY).toISOString())}`);
    expectProblem(future, 400, 'INVALID_PARAMETER');
    expect(future.body.type).toBe(W3C_RETRIEVAL_ERROR);
  });

  it('answers 400 for a malformed list identifier or timestamp', async () => {
    expectProblem(await get('/v1/status-lists/Demo_2026'), 400, 'INVALID_PARAMETER');
    for (const bad of ['yesterday', '2026-01-01', '2026-01-01T00:00:00']) {
      const res = await get(`/v1/status-lists/${DEMO_STATUS_LISTS.revocation}?timestamp=${bad}`);
      expectProblem(res, 400, 'INVALID_PARAMETER');
      expect(res.body.parameter).toBe('timestamp');
    }
  });

  it('is not reachable through the object route (derived records sit outside the reference alphabet)', async () => {
    expectProblem(await get(`/v1/objects/${encodeURIComponent(`status-list/${DEMO_STATUS_LISTS.revocation}`)}`), 400, 'INVALID_REFERENCE');
  });
});
