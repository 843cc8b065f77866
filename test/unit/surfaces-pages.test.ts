import { resolveObject, type ObjectWindowEntry } from '../../functions/domain/objects';
import { commercialProofEvidence, type ProofWindowEntry } from '../../functions/domain/proofs';
import { verifyCredential } from '../../functions/domain/credentials/verification';
import { credentialVerdict } from '../../functions/pages/credential-presentation';
import { proofStatusWording } from '../../functions/pages/proof-presentation';
import { buildActivationReadiness, buildProductionFoundations } from '../../functions/domain/surfaces/readiness';
import { renderErrorPage } from '../../functions/pages/error-page';
import { dispositionWording } from '../../functions/pages/presentation';
import { renderStudio } from '../../functions/pages/studio-page';
import { codeText } from '../../functions/pages/markup';
import { renderProofReceipt, renderTrustReceipt } from '../../functions/pages/trust-receipt-page';
import { renderVerifyPage } from '../../functions/pages/verify-page';
import { translator } from '../../functions/pages/page-languages';
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
const view = { resolution, integrity: 'CONFIRMED' as const };

describe('trust receipt page', () => {
  const page = renderTrustReceipt({ baseUrl: BASE, reference: 'ORD-9', ...view, olderEntriesExist: true, ledgerUrl: `${BASE}/v1/ledger` });

  it('escapes every value that comes from a record', () => {
    expect(page).not.toContain(HOSTILE);
    expect(page).not.toContain(ATTRIBUTE_BREAK);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
  });

  it('never shows restricted data', () => {
    for (const value of Object.values(PII)) expect(page).not.toContain(value);
  });

  it('reads as the JSON resolution does, in words: the verdict, the state and since when, who says so, what was checked, a newest-first timeline', () => {
    expect(resolution.current.overallDisposition).toBe('TRUSTED');
    expect(page).toContain(dispositionWording('TRUSTED').label);
    expect(page).toContain('<dt>State</dt><dd><strong>Delivered</strong></dd>');
    expect(page).toContain('The record shown is the one in the public ledger');
    expect(page).toContain('Not disclosed');
    // An authority the catalogue does not name is shown as the record gives it, marked as the record's words.
    expect(page).toContain('<dt>Who says so</dt><dd><span translate="no">&lt;script&gt;alert(1)&lt;/script&gt;</span></dd>');
    const observed = page.indexOf('Authority confirmed the state');
    const changed = page.indexOf('State changed from Placed to');
    const recorded = page.indexOf('Recorded as');
    expect(observed).toBeGreaterThan(0);
    expect(observed).toBeLessThan(changed);
    expect(changed).toBeLessThan(recorded);
    expect(page).toContain('3 entries, newest first, older entries not shown.');
    expect(page).toContain(`href="${BASE}/v1/ledger"`);
    expect(page).toContain(`href="${BASE}/v1/objects/ORD-9"`);
  });

  it('keeps the contract codes one click away, in a details element: state, verdict, disposition, assurance level, rights', () => {
    const codes = page.slice(page.indexOf('<details class="codes">'), page.indexOf('</details>'));
    for (const value of ['DELIVERED', 'TRUSTED', 'CURRENT', 'CURRENT_<wbr>CONFIRMED', 'NO_<wbr>PUBLIC_<wbr>RIGHT_<wbr>ASSERTED']) expect(codes).toContain(`<code>${value}</code>`);
    const outside = page.replace(codes, '');
    for (const value of ['CURRENT_CONFIRMED', 'NO_PUBLIC_RIGHT_ASSERTED', '(DELIVERED)']) expect(outside).not.toContain(value);
  });

  it('says how an ended lifecycle ended: a returned order is returned, not withdrawn', () => {
    const returned = [entry('2026-05-01T11:00:00.000Z', 'RETURNED', 3, 'STATE_CHANGED', null, 'DELIVERED'), ...entries];
    const ended = resolveObject({ reference: 'ORD-9', entries: returned, evaluation: { at: NOW, historical: false }, integrityConfirmed: true, baseUrl: BASE });
    const receipt = renderTrustReceipt({ baseUrl: BASE, reference: 'ORD-9', resolution: ended, integrity: 'CONFIRMED', olderEntriesExist: false });
    expect(ended.current.overallDisposition).toBe('REVOKED');
    expect(receipt).toContain('<span class="status bad">Ended</span> It was returned: the rights that came with it ended with the return.');
    expect(receipt).not.toContain('Withdrawn');
    expect(receipt).not.toContain('whatever it granted');
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
    expect(page).toContain('No ledger evidence is held for this record, so nothing proves it was not altered.');
    for (const value of Object.values(PII)) expect(page).not.toContain(value);
  });

  it('says what the evidence says, in words: claims by the catalogue (a date in the reader\'s locale), unknown claims as code, the subject linked', () => {
    expect(evidence.verification.status).toBe('NOT_CONFIRMED');
    expect(page).toContain(proofStatusWording('NOT_CONFIRMED').label);
    expect(page).toContain('<dt>Purchased on</dt><dd><time datetime="2026-04-20">Apr 20, 2026</time></dd>');
    expect(page).toContain('<dt><code>giftWrapped</code></dt><dd>Yes</dd>');
    expect(page).toContain('<dt><code>&lt;script&gt;alert(1)&lt;/<wbr>script&gt;</code></dt><dd><span translate="no">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</span></dd>');
    expect(page).toContain(`href="${BASE}/trust-receipt/ORD-9?lang=en"`);
    expect(page).toContain(`href="${BASE}/v1/commercial-proofs/PRF-9"`);
    expect(page.indexOf('Source checked')).toBeLessThan(page.indexOf('Proof issued'));
    const german = renderProofReceipt({ baseUrl: BASE, reference: 'PRF-9', evidence, timeline: [], olderEntriesExist: false, t: translator({ lang: 'de', formatLocale: 'de' }) });
    expect(german).toContain('<dt>Gekauft am</dt><dd><time datetime="2026-04-20">20. Apr. 2026</time></dd>');
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

  it('says plainly when a reference names something it cannot show', () => {
    const page = renderVerifyPage({ baseUrl: BASE, entered: 'LIST-1', outcome: { kind: 'other-kind', reference: 'LIST-1', recordKind: 'STATUS_LIST' } });
    expect(page).toContain('This reference names something this page cannot show.');
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

  it('the studio shows the checks, the gates, the fail-closed authorities and every endpoint, closed-by-design things as what they are', () => {
    const links = {};
    const foundations = buildProductionFoundations({ configured: true, reachable: false, failure: 'UNREACHABLE', errorName: 'ECONNREFUSED', durationMs: 5 }, TABLE_SCHEMA_VERSION, NOW, links);
    const activation = buildActivationReadiness({}, NOW, links);
    const page = renderStudio({ baseUrl: BASE, operations, foundations, activation });
    expect(page).toContain('<span class="status bad">Not ready</span>');
    expect(page).toContain('The table did not answer within the store timeout');
    for (const a of foundations.authorities) expect(page).toContain(`<code>${codeText(a.key).value}</code>`);
    for (const g of activation.gates) expect(page).toContain(codeText(g.key).value);
    for (const op of operations) expect(page).toContain(codeText(op.path).value);
    expect(page).toContain(`${operations.length} operations`);
    // Safe by design, and said so in a neutral tone: never a failure's colour or word.
    expect(page).toContain('<span class="status info">Not offered yet</span>');
    expect(page).toContain('<span class="status info">Kept closed on purpose</span>');
    expect(page).not.toMatch(/>(FAIL_CLOSED|NOT_CONFIGURED|GATED)</);
    expect(page).not.toContain('status warn');
    // A route gated by persistence reads as closed when the store does not answer.
    expect(page).toContain('Closed: its store does not answer');
    expect(page).not.toContain('class="wide"');
  });
});

describe('credential card', () => {
  const content = {
    credentialId: 'CRED-9',
    credentialType: 'MembershipCredential',
    title: HOSTILE,
    issuer: 'did:web:issuer.example.org',
    validFrom: '2026-01-01T00:00:00.000Z',
    validUntil: '2027-01-01T00:00:00.000Z',
    subject: { type: 'Member', claims: { membershipLevel: PII.name } },
    status: 'ACTIVE' as const,
    statusSince: '2026-01-01T00:00:00.000Z',
    statusList: 'demo',
    statusSlots: [{ statusPurpose: 'revocation' as const, listId: 'demo-revocation', statusListIndex: 7 }],
    freshnessSeconds: 3600,
    version: 1,
  };
  const verificationOf = (status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED', lastConfirmedAt: string, confirmed = true, overrides: Partial<typeof content> = {}) =>
    verifyCredential({
      newest: {
        at: lastConfirmedAt,
        entry: { at: lastConfirmedAt, type: 'AUTHORITY_OBSERVED', status, previousStatus: status, source: 'ISSUER_STATUS_SYNC' },
        view: { status, lastConfirmedAt },
        head: { kind: 'CREDENTIAL', reference: 'CRED-9', version: 1, content: { ...content, ...overrides, status, statusSince: '2026-04-01T00:00:00.000Z' }, evidence: null },
      },
      evaluatedAt: NOW,
      integrity: { confirmed, reason: 'x' },
      baseUrl: BASE,
    });

  it('names the verdict by what decides it: a status that is not active first, then integrity, then a status not confirmed recently', () => {
    expect(credentialVerdict(verificationOf('ACTIVE', '2026-05-01T11:30:00.000Z'))).toBe('VALID');
    expect(credentialVerdict(verificationOf('REVOKED', '2026-05-01T11:30:00.000Z', false))).toBe('REVOKED');
    expect(credentialVerdict(verificationOf('SUSPENDED', '2026-05-01T11:30:00.000Z'))).toBe('SUSPENDED');
    expect(credentialVerdict(verificationOf('ACTIVE', '2026-05-01T11:30:00.000Z', true, { validUntil: '2026-04-30T00:00:00.000Z' }))).toBe('EXPIRED');
    expect(credentialVerdict(verificationOf('ACTIVE', '2026-04-01T00:00:00.000Z', false))).toBe('INTEGRITY');
    expect(credentialVerdict(verificationOf('ACTIVE', '2026-04-01T00:00:00.000Z'))).toBe('UNCONFIRMED');
  });

  it('says in words what the JSON says, with each check and its outcome code one click away, and never the subject', () => {
    const v = verificationOf('SUSPENDED', '2026-05-01T11:30:00.000Z');
    const page = renderVerifyPage({ baseUrl: BASE, entered: 'CRED-9', outcome: { kind: 'credential', verification: v, integrity: 'NO_EVIDENCE' } });
    expect(page).toContain('<h2 id="result-heading">Membership credential <code>CRED-9</code></h2>');
    expect(page).toContain('<span class="status warn">Suspended</span> Its issuer suspended it: do not rely on it unless it is reinstated.');
    expect(page).toContain('No ledger evidence is held for this record');
    expect(page).toContain('<dt><code>status</code></dt><dd><code>FAIL</code></dd>');
    expect(page).toContain(`<a href="${BASE}/v1/status-lists/demo-revocation" type="application/json">revocation list, position 7</a>`);
    expect(page).toContain(`href="${BASE}/trust-receipt/CRED-9?lang=en"`);
    expect(page).not.toContain(PII.name);
    expect(page).not.toContain(HOSTILE);
  });
});
