import { RECEIPT_SCRIPT } from '../../functions/generated/receipt-script';
import { operations } from '../../functions/contract/operations';
import { surfacesOperations } from '../../functions/contract/operations/surfaces';
import { ErrorResponse } from '../../functions/contract/schemas/common';
import { ActivationReadiness, ProductionFoundations, TrustFabricCatalogue, TrustInfrastructure } from '../../functions/contract/schemas/surfaces';
import { dispositionWording } from '../../functions/pages/presentation';
import { credentialWording } from '../../functions/pages/credential-presentation';
import { codeText } from '../../functions/pages/markup';
import { DEMO_CREDENTIAL_RESTRICTED_VALUES, DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { proofStatusWording } from '../../functions/pages/proof-presentation';
import { DEMO_OBJECTS, DEMO_RESTRICTED_VALUES } from '../../fixtures/demo';
import type { LocalService } from '../../lib/local/service';
import { getJson, startTestService } from '../support/local';
import { CACHE_CONTROL, NEGATIVE_CACHE_CONTROL, NEVER_STORED } from '../../functions/contract/caching';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let service: LocalService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const url = (path: string) => `${service.url}${path}`;

/**
 * A page's own headers, and how long it may be kept: a 200 by its route's class (the studio is an
 * inspection, never stored; /verify and a receipt are current views, a few seconds at a shared
 * cache), a 404 briefly, any other problem never; each varies on Accept and Accept-Language.
 */
function expectPageHeaders(headers: Headers, path: string, status = 200) {
  const kept = path.startsWith('/studio') ? NEVER_STORED : CACHE_CONTROL.current;
  expect(headers.get('cache-control')).toBe(status === 200 ? kept : status === 404 ? NEGATIVE_CACHE_CONTROL : NEVER_STORED);
  expect(headers.get('vary')).toBe('Accept, Accept-Language, Accept-Encoding');
  expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-[A-Za-z0-9+/=]+'/);
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-correlation-id')).toBeTruthy();
}

describe('JSON surfaces', () => {
  it.each([
    ['/v1/trust-fabric/catalogue', TrustFabricCatalogue],
    ['/v1/trust-infrastructure', TrustInfrastructure],
    ['/v1/activation-readiness', ActivationReadiness],
    ['/v1/activation-readiness/production-foundations', ProductionFoundations],
  ] as const)('%s answers 200 application/json valid against its contract schema', async (path, schema) => {
    const res = await getJson(url(path));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const parsed = schema.safeParse(res.body);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    expect(res.body.disclosure).toMatchObject({ containsCustomerPii: false, containsPaymentAccountData: false });
  });

  it.each(['/v1/trust-fabric/catalogue', '/v1/trust-infrastructure'])('%s carries an ETag and Cache-Control and answers 304 to If-None-Match', async (path) => {
    const first = await fetch(url(path));
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    const again = await fetch(url(path), { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const weak = await fetch(url(path), { headers: { 'if-none-match': `"other", W/${etag}` } });
    expect(weak.status).toBe(304);
    const changed = await fetch(url(path), { headers: { 'if-none-match': '"something-else"' } });
    expect(changed.status).toBe(200);
  });

  it('links every route of the trust infrastructure by absolute URL on this host, and each link is served', async () => {
    const doc = (await getJson(url('/v1/trust-infrastructure'))).body as TrustInfrastructure;
    const links = [...Object.values(doc.links), ...doc.developerDocuments.map((d) => d.href)];
    expect(doc.links.activationReadiness).toBe(url('/v1/activation-readiness'));
    for (const link of links) {
      expect(link.startsWith(`${service.url}/`)).toBe(true);
      const res = await fetch(link);
      expect([link, res.status]).toEqual([link, 200]);
    }
    expect(doc.capabilities.flatMap((c) => c.endpoints)).toHaveLength(operations.length);
  });

  it('the production foundations report sees the loaded demo table as READY, authorities fail-closed', async () => {
    const doc = (await getJson(url('/v1/activation-readiness/production-foundations'))).body as ProductionFoundations;
    expect(doc.status).toBe('READY');
    expect(doc.authorities.map((a) => [a.key, a.status])).toEqual([
      ['SIGNING', 'FAIL_CLOSED'],
      ['CUSTODY', 'FAIL_CLOSED'],
      ['TREASURY', 'FAIL_CLOSED'],
      ['SETTLEMENT', 'FAIL_CLOSED'],
      ['REGULATORY_AUTHORITY', 'FAIL_CLOSED'],
    ]);
  });

  it('refuses writes on every surface route with 405 problem details', async () => {
    for (const op of surfacesOperations) {
      const path = op.path.replace('{reference}', DEMO_OBJECTS.current);
      const res = await getJson(url(path), { method: 'POST', body: '{}' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    }
  });
});

describe('pages', () => {
  it.each([
    ['/studio', 0],
    ['/verify', 0],
    [`/trust-receipt/${DEMO_OBJECTS.current}`, 1],
    [`/verify?reference=${DEMO_OBJECTS.current}`, 1],
  ])('%s is an HTML page with a strict policy, no handler and at most the receipt check as script', async (path, scripts) => {
    const res = await fetch(url(path));
    expect(res.status).toBe(200);
    expectPageHeaders(res.headers, path);
    const body = await res.text();
    expect(body).toMatch(/^<!doctype html>/);
    expect(body).not.toMatch(/javascript:|\son[a-z]+=/i);
    // The only script is the device check, by its exact text (the data block beside it is JSON, never run).
    const code = [...body.matchAll(/<script( type="application\/json" id="device-evidence")?>([\s\S]*?)<\/script>/g)].filter((m) => !m[1]).map((m) => m[2]);
    expect(code).toEqual(Array(scripts).fill(RECEIPT_SCRIPT));
    expect(body.match(/<script/g) ?? []).toHaveLength(scripts * 2);
  });

  it.each(Object.entries(DEMO_OBJECTS))('the trust receipt of the %s demo object says what the JSON resolution says, and nothing restricted', async (_name, reference) => {
    const json = (await getJson(url(`/v1/objects/${reference}`))).body;
    const res = await fetch(url(`/trust-receipt/${reference}`));
    expect(res.status).toBe(200);
    const page = await res.text();
    const wording = dispositionWording(json.current.overallDisposition);
    expect(page).toContain(`<span class="status ${wording.tone}">${wording.label}</span>`);
    // The contract's codes, one click away.
    expect(page).toContain(`<code>${codeText(json.current.state).value}</code>`);
    expect(page).toContain(`<code>${codeText(json.current.disposition).value}</code>`);
    for (const secret of DEMO_RESTRICTED_VALUES) expect(page).not.toContain(secret);
    if (reference === DEMO_OBJECTS.longHistory) expect(page).toContain('older entries not shown');
  });

  it.each(Object.entries(DEMO_PROOFS))('the trust receipt of the %s demo proof says what the JSON evidence says, and nothing restricted', async (_name, reference) => {
    const json = (await getJson(url(`/v1/commercial-proofs/${reference}`))).body;
    expect(json.verification.trustReceiptUrl).toBe(url(`/trust-receipt/${reference}`));
    for (const page of [await (await fetch(json.verification.trustReceiptUrl)).text(), await (await fetch(json.verification.verifyUrl)).text()]) {
      const wording = proofStatusWording(json.verification.status);
      expect(page).toContain(`<span class="status ${wording.tone}">${wording.label}</span>`);
      expect(page).toContain(`<code>${codeText(json.verification.currentSourceStatus.disposition).value}</code>`);
      expect(page).toContain(`<code>${codeText(json.verification.currentSourceStatus.state).value}</code>`);
      for (const secret of DEMO_RESTRICTED_VALUES) expect(page).not.toContain(secret);
    }
  });

  it('every disclosure class a read route answers with is described by the trust fabric catalogue', async () => {
    const catalogue = (await getJson(url('/v1/trust-fabric/catalogue'))).body;
    const described = new Set(catalogue.disclosureClasses.map((c: { key: string }) => c.key));
    const reads = [`/v1/objects/${DEMO_OBJECTS.current}`, `/v1/commercial-proofs/${DEMO_PROOFS.current}`, `/v1/credentials/verify/${DEMO_CREDENTIALS.active}`, '/v1/ledger'];
    for (const path of reads) {
      const res = await getJson(url(path));
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, described.has(res.body.disclosure.class)]).toEqual([path, true]);
    }
    for (const service of catalogue.trustServices) expect(described.has(service.disclosureClass)).toBe(true);
  });

  it('/verify answers a reference with surrounding spaces, and a credential with a card for people that links its own answer', async () => {
    const spaced = await fetch(url(`/verify?reference=${encodeURIComponent(`  ${DEMO_OBJECTS.stale} `)}`));
    expect(spaced.status).toBe(200);
    expect(await spaced.text()).toContain(dispositionWording('STALE').label);

    const credential = await fetch(url(`/verify?reference=${DEMO_CREDENTIALS.active}`));
    expect(credential.status).toBe(200);
    const page = await credential.text();
    expect(page).toContain('<span class="status ok">Valid</span>');
    expect(page).toContain(`href="${service.url}/v1/credentials/verify/${DEMO_CREDENTIALS.active}"`);
    expect(page).not.toContain('Max Mustermann');
  });

  it.each(Object.entries(DEMO_CREDENTIALS))('the trust receipt of the %s demo credential says what the JSON verification says, and nothing restricted', async (_name, reference) => {
    const json = (await getJson(url(`/v1/credentials/verify/${reference}`))).body;
    const res = await fetch(url(`/trust-receipt/${reference}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBe(`<${url(`/v1/credentials/verify/${reference}`)}>; rel="alternate"; type="application/json"`);
    const page = await res.text();
    const wording = credentialWording(json);
    expect(page).toContain(`<span class="status ${wording.tone}">${wording.label}</span>`);
    expect(wording.label === 'Valid').toBe(json.verified);
    expect(page).toContain(`<code>${codeText(json.status).value}</code>`);
    for (const check of json.checks) expect(page).toContain(`<dt><code>${check.check}</code></dt><dd><code>${codeText(check.outcome).value}</code></dd>`);
    for (const secret of DEMO_CREDENTIAL_RESTRICTED_VALUES) expect(page).not.toContain(secret);
  });

  describe('problems negotiate on Accept', () => {
    it.each([
      ['/trust-receipt/NO-SUCH-REF', 404, 'NOT_FOUND'],
      ['/trust-receipt/x', 400, 'INVALID_REFERENCE'],
      ['/verify?reference=%3Cscript%3Ealert(1)%3C%2Fscript%3E', 400, 'INVALID_REFERENCE'],
      ['/verify?reference=', 400, 'INVALID_REFERENCE'],
      ['/verify?reference=NO-SUCH-REF', 404, 'NOT_FOUND'],
    ])('%s: problem details by default, an HTML page for a browser (%i %s)', async (path, status, code) => {
      const problem = await getJson(url(path));
      expect(problem.status).toBe(status);
      expect(problem.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(ErrorResponse.safeParse(problem.body).success).toBe(true);
      expect(problem.body.code).toBe(code);

      const page = await fetch(url(path), { headers: { accept: BROWSER_ACCEPT } });
      expect(page.status).toBe(status);
      expectPageHeaders(page.headers, path, status);
      const body = await page.text();
      expect(body).toContain(`<code>${page.headers.get('x-correlation-id')}</code>`);
      expect(body).toContain('role="alert"');
      expect(body).not.toContain('<script>');
    });
  });
});
