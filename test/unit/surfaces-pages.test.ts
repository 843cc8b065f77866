import { resolveObject, type ObjectWindowEntry } from '../../functions/domain/objects';
import { commercialProofEvidence, type ProofWindowEntry } from '../../functions/domain/proofs';
import { claimName, proofStatusWording } from '../../functions/pages/proof-presentation';
import { buildActivationReadiness, buildProductionFoundations } from '../../functions/domain/surfaces/readiness';
import { renderErrorPage } from '../../functions/pages/error-page';
import { dispositionWording } from '../../functions/pages/presentation';
import { renderStudio } from '../../functions/pages/studio-page';
import { renderProofReceipt, renderTrustReceipt } from '../../functions/pages/trust-receipt-page';
import { renderVerifyPage } from '../../functions/pages/verify-page';
import { operations } from '../../functions/contract/operations';
import { TABLE_SCHEMA_VERSION } from '../../functions/store/layout';

const BASE = 'https://trust.example.org';
const NOW = '2026-05-01T12:00:00.000Z';
const HOSTILE = '<script>alert(1)</script>';
const ATTRIBUTE_BREAK = '"><img src=x onerror=alert(1)>';
const PII = { name: 'Jane Private', card: '5555444433331111' };

function entry(at: string, state: string, version: number, type: 'STATE_CHANGED' | 'AUTHORITY_OBSERVED', lastObservedAt: string | null, previousState: string | null = null): ObjectWindowEntry {
  return {
    at,
    entry: type === 'STATE_CHANGED' ? { at, type, state, previousState, source: ATTRIBUTE_BREAK } : { at, type, state, source: HOSTILE },
    view: { state, lastObservedAt },
    head: {
      kind: 'OBJECT',
      reference: 'ORD-9',
      version,
      content: { reference: 'ORD-9', objectType: 'ORDER', businessReference: ATTRIBUTE_BREAK, title: HOSTILE, authority: HOSTILE, state, stateSince: at, version, freshnessSeconds: 3600 },
      evidence: { version },
      restricted: PII,
    },
  };
}

// Newest first, as the store returns them.
const entries = [
  entry('2026-05-01T11:50:00.000Z', 'DELIVERED', 2, 'AUTHORITY_OBSERVED', '2026-05-01T11:50:00.000Z'),
  entry('2026-05-01T10:00:00.000Z', 'DELIVERED', 2, 'STATE_CHANGED', null, 'PLACED'),
  entry('2026-04-30T10:00:00.000Z', 'PLACED', 1, 'STATE_CHANGED', null),
];
const resolution = resolveObject({ reference: 'ORD-9', entries, evaluation: { at: NOW, historical: false }, integrityConfirmed: true, baseUrl: BASE });
const view = { resolution, integrityReason: 'Inclusion proof verified <ok>.' };

describe('trust receipt page', () => {
  const page = renderTrustReceipt({ baseUrl: BASE, reference: 'ORD-9', ...view, olderEntriesExist: true, ledgerUrl: `${BASE}/v1/ledger` });

  it('escapes every value that comes from a record', () => {
    expect(page).not.toContain(HOSTILE);
    expect(page).not.toContain(ATTRIBUTE_BREAK);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('Inclusion proof verified &lt;ok&gt;.');
  });

  it('never shows restricted data', () => {
    for (const value of Object.values(PII)) expect(page).not.toContain(value);
  });

  it('reads as the JSON resolution does: the same disposition word, state, rights and a newest-first timeline', () => {
    expect(resolution.current.overallDisposition).toBe('TRUSTED');
    expect(page).toContain(dispositionWording('TRUSTED').label);
    expect(page).toContain('Delivered <code class="muted">(DELIVERED)</code>');
    expect(page).toContain('CURRENT_CONFIRMED');
    expect(page).toContain('NO_PUBLIC_RIGHT_ASSERTED');
    expect(page).toContain('Not disclosed');
    const observed = page.indexOf('Authority observed the state');
    const changed = page.indexOf('State changed from Placed to');
    const recorded = page.indexOf('Recorded as');
    expect(observed).toBeGreaterThan(0);
    expect(observed).toBeLessThan(changed);
    expect(changed).toBeLessThan(recorded);
    expect(page).toContain('3 entries, newest first, older entries not shown.');
    expect(page).toContain(`href="${BASE}/v1/ledger"`);
    expect(page).toContain(`href="${BASE}/v1/objects/ORD-9"`);
  });
});

describe('commercial proof receipt', () => {
  const at = '2026-04-20T10:00:00.000Z';
  const newest: ProofWindowEntry = {
    at: '2026-05-01T11:00:00.000Z',
    entry: { at: '2026-05-01T11:00:00.000Z', type: 'SOURCE_SYNCHRONIZED', state: 'CONFIRMED', source: HOSTILE },
    view: { lastSynchronization: { at: '2026-05-01T11:00:00.000Z', state: 'CONFIRMED', digest: 'sha256:aa' }, synchronizations: 1 },
    head: {
      kind: 'COMMERCIAL_PROOF',
      reference: 'PRF-9',
      version: 1,
      content: {
        reference: 'PRF-9',
        proofType: 'PURCHASE',
        title: HOSTILE,
        issuer: ATTRIBUTE_BREAK,
        issuedAt: at,
        subjectReference: 'ORD-9',
        claims: { purchasedOn: '2026-04-20', [HOSTILE]: ATTRIBUTE_BREAK, giftWrapped: true },
        source: { system: HOSTILE, recordType: 'PURCHASE', digest: 'sha256:aa' },
        freshnessSeconds: 3600,
        version: 1,
      },
      evidence: null,
      restricted: PII,
    },
  };
  const evidence = commercialProofEvidence({ newest, integrity: { confirmed: false, reason: 'No ledger evidence <none>.', checks: [] }, now: NOW, baseUrl: BASE });
  const page = renderProofReceipt({ baseUrl: BASE, reference: 'PRF-9', evidence, timeline: [{ at, type: 'PROOF_ISSUED', state: 'ISSUED', source: 'Issuer' }, newest.entry], olderEntriesExist: false });

  it('escapes every value of the proof, claim names included, and shows nothing restricted', () => {
    expect(page).not.toContain(HOSTILE);
    expect(page).not.toContain(ATTRIBUTE_BREAK);
    expect(page).toContain('Not confirmed: No ledger evidence is held for this proof.');
    for (const value of Object.values(PII)) expect(page).not.toContain(value);
  });

  it('says what the evidence says: status, source disposition, claims as words, subject linked', () => {
    expect(evidence.verification.status).toBe('NOT_CONFIRMED');
    expect(page).toContain(proofStatusWording('NOT_CONFIRMED').label);
    expect(page).toContain('<code>CURRENT</code>');
    expect(page).toContain('<dt>Purchased on</dt><dd>2026-04-20</dd>');
    expect(page).toContain('<dt>Gift wrapped</dt><dd>Yes</dd>');
    expect(page).toContain(`href="${BASE}/trust-receipt/ORD-9?lang=en"`);
    expect(page).toContain(`href="${BASE}/v1/commercial-proofs/PRF-9"`);
    expect(page.indexOf('Source observed')).toBeLessThan(page.indexOf('Proof issued'));
    expect(claimName('coverage_ends')).toBe('Coverage ends');
  });
});

describe('verify page', () => {
  it('shows the form alone, with the entered text escaped back into the field', () => {
    const page = renderVerifyPage({ baseUrl: BASE, entered: ATTRIBUTE_BREAK, outcome: { kind: 'problem', status: 400, title: 'Invalid reference', detail: 'bad', correlationId: 'corr-12345678' } });
    expect(page).not.toContain(ATTRIBUTE_BREAK);
    expect(page).toContain(`value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"`);
    expect(page).toContain('aria-invalid="true"');
    expect(page).toContain('role="alert"');
    expect(page).toContain('corr-12345678');
    expect(page).toContain(`action="${BASE}/verify"`);
  });

  it('shows a status card and the way to the receipt for an object', () => {
    const page = renderVerifyPage({ baseUrl: BASE, entered: 'ORD-9', outcome: { kind: 'object', ...view } });
    expect(page).toContain('role="status"');
    expect(page).toContain(`href="${BASE}/trust-receipt/ORD-9?lang=en"`);
    for (const value of Object.values(PII)) expect(page).not.toContain(value);
  });

  it('points a credential reference to its own verification answer', () => {
    const page = renderVerifyPage({ baseUrl: BASE, entered: 'CRED-1', outcome: { kind: 'other-kind', reference: 'CRED-1', recordKind: 'CREDENTIAL' } });
    expect(page).toContain('a credential');
    expect(page).toContain(`href="${BASE}/v1/credentials/verify/CRED-1"`);
  });
});

describe('error page and studio', () => {
  it('the error page carries status, code and correlation id, and the form to try again', () => {
    const page = renderErrorPage({ baseUrl: BASE, status: 503, title: 'Dependency temporarily unavailable', detail: HOSTILE, code: 'DEPENDENCY_UNAVAILABLE', correlationId: 'corr-abcdefgh' });
    expect(page).toContain('Status 503, code <code>DEPENDENCY_UNAVAILABLE</code>');
    expect(page).toContain('corr-abcdefgh');
    expect(page).not.toContain(HOSTILE);
    expect(page).toContain('name="reference"');
  });

  it('the studio shows the checks, the gates, the fail-closed authorities and every endpoint', () => {
    const links = {};
    const foundations = buildProductionFoundations({ configured: true, reachable: false, failure: 'UNREACHABLE', errorName: 'ECONNREFUSED', durationMs: 5 }, TABLE_SCHEMA_VERSION, NOW, links);
    const activation = buildActivationReadiness({}, NOW, links);
    const page = renderStudio({ baseUrl: BASE, operations, foundations, activation });
    expect(page).toContain('NOT_READY');
    expect(page).toContain('The table did not answer within the store timeout');
    for (const a of foundations.authorities) expect(page).toContain(`<code>${a.key}</code>`);
    for (const g of activation.gates) expect(page).toContain(g.key);
    for (const op of operations) expect(page).toContain(op.path);
    expect(page).toContain(`${operations.length} operations`);
  });
});
