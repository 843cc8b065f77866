import { CommercialProofEvidence, CurrentSourceStatus } from '../../functions/contract/schemas/proofs';
import type { IntegrityInspection } from '../../functions/domain/evidence';
import {
  commercialProofEvidence,
  currentSourceStatus,
  publicProof,
  sourceDisposition,
  verificationStatus,
  type ProofContent,
  type ProofWindowEntry,
  type SourceSnapshot,
} from '../../functions/domain/proofs';
import { DISPOSITIONS } from '../../functions/contract/schemas/objects';

const NOW = '2026-11-22T12:00:00.000Z';
const minutesAgo = (m: number) => new Date(Date.parse(NOW) - m * 60_000).toISOString();
const DIGEST = `sha256:${'a'.repeat(64)}`;
const OTHER = `sha256:${'b'.repeat(64)}`;

const content: ProofContent = {
  reference: 'PRF-1',
  proofType: 'PURCHASE',
  title: 'Proof of purchase',
  issuer: 'Service platform',
  issuedAt: minutesAgo(600),
  claims: { item: 'Kettle', quantity: 1 },
  source: { system: 'External commerce platform', recordType: 'PURCHASE', digest: DIGEST },
  freshnessSeconds: 3600,
  version: 1,
};
const snap = (minutes: number, state = 'CONFIRMED', digest = DIGEST): SourceSnapshot => ({ at: minutesAgo(minutes), state, digest });

describe('currentSourceStatus.disposition', () => {
  it.each<[string, SourceSnapshot | null, string]>([
    ['UNKNOWN when never synchronized', null, 'UNKNOWN'],
    ['CURRENT when the digest matches and the snapshot is fresh', snap(10), 'CURRENT'],
    ['CURRENT exactly at the edge of the freshness window', snap(60), 'CURRENT'],
    ['STALE just past the freshness window', { ...snap(60), at: new Date(Date.parse(NOW) - 3_600_001).toISOString() }, 'STALE'],
    ['MODIFIED when the source digest changed', snap(10, 'CONFIRMED', OTHER), 'MODIFIED'],
    ['MODIFIED outranks STALE: an observed change stays a fact', snap(6000, 'CONFIRMED', OTHER), 'MODIFIED'],
    ['HISTORICAL_ONLY when the source is archived', snap(10, 'ARCHIVED'), 'HISTORICAL_ONLY'],
    ['HISTORICAL_ONLY when superseded, even if changed and stale', snap(6000, 'SUPERSEDED', OTHER), 'HISTORICAL_ONLY'],
  ])('%s', (_label, snapshot, expected) => {
    expect(sourceDisposition(content, snapshot, NOW)).toBe(expected);
  });

  it('every disposition is reachable and valid', () => {
    const reached = new Set([null, snap(10), snap(600), snap(10, 'CONFIRMED', OTHER), snap(10, 'ARCHIVED')].map((s) => sourceDisposition(content, s, NOW)));
    expect([...reached].sort()).toEqual([...DISPOSITIONS].sort());
  });

  it('reports state, freshness and observation instant', () => {
    expect(currentSourceStatus(content, null, NOW)).toEqual({ state: 'UNKNOWN', disposition: 'UNKNOWN', fresh: false, observedAt: null });
    const status = currentSourceStatus(content, snap(600, 'RETURNED', OTHER), NOW);
    expect(status).toEqual({ state: 'RETURNED', disposition: 'MODIFIED', fresh: false, observedAt: minutesAgo(600) });
    expect(CurrentSourceStatus.strict().safeParse(status).success).toBe(true);
  });

  it('a snapshot dated after the evaluation instant is not fresh', () => {
    expect(currentSourceStatus(content, snap(-5), NOW).fresh).toBe(false);
  });
});

describe('verification.status', () => {
  it('NOT_CONFIRMED whenever the proof did not verify, whatever the source says', () => {
    for (const d of DISPOSITIONS) expect(verificationStatus(false, d)).toBe('NOT_CONFIRMED');
  });
  it('CONFIRMED only for a verified proof whose source is CURRENT; otherwise REVIEW_REQUIRED', () => {
    for (const d of DISPOSITIONS) expect(verificationStatus(true, d)).toBe(d === 'CURRENT' ? 'CONFIRMED' : 'REVIEW_REQUIRED');
  });
});

describe('commercialProofEvidence', () => {
  const entry = (snapshot: SourceSnapshot | null, evidence: ProofWindowEntry['head']['evidence']): ProofWindowEntry => ({
    at: snapshot?.at ?? content.issuedAt,
    entry: { at: snapshot?.at ?? content.issuedAt, type: snapshot ? 'SOURCE_SYNCHRONIZED' : 'PROOF_ISSUED', state: snapshot?.state ?? 'ISSUED', source: 'x' },
    view: { lastSynchronization: snapshot, synchronizations: snapshot ? 2 : 0 },
    head: { kind: 'COMMERCIAL_PROOF', reference: 'PRF-1', version: 1, content: { ...content, secretNote: 'internal' } as ProofContent, evidence, restricted: { customer: 'Someone' } },
  });
  const verified: IntegrityInspection = { confirmed: true, reason: 'ok', checks: [] };
  const evidence = {
    format: 'svc.ledger-evidence.v1' as const,
    version: 1,
    origin: 'o.example/log',
    leafIndex: 0,
    treeSize: 1,
    leafHash: Buffer.alloc(32).toString('base64'),
    inclusionProof: [],
    checkpoint: 'o.example/log\n1\nAAAA\n\n— o.example/log AAAA\n',
  };

  it('builds a response that satisfies the contract, with absolute links and the synchronization facts', () => {
    const body = commercialProofEvidence({ newest: entry(snap(30), evidence), integrity: verified, now: NOW, baseUrl: 'https://api.example/v1base' });
    expect(CommercialProofEvidence.safeParse(body).success).toBe(true);
    expect(body.verification).toMatchObject({
      status: 'CONFIRMED',
      proofVerified: true,
      currentSourceStatus: { disposition: 'CURRENT', fresh: true },
      verifyUrl: 'https://api.example/v1base/verify?reference=PRF-1',
      trustReceiptUrl: 'https://api.example/v1base/trust-receipt/PRF-1',
    });
    expect(body.verification.synchronization).toMatchObject({
      sourceSystem: 'External commerce platform',
      lastSynchronizedAt: minutesAgo(30),
      lagSeconds: 1800,
      freshnessWindowSeconds: 3600,
      digestAtIssue: DIGEST,
      digestObserved: DIGEST,
    });
    expect(body.verification.ledger).toMatchObject({ ...evidence, integrity: { confirmed: true } });
  });

  it('shows only the public proof fields, never restricted or unknown stored fields', () => {
    const body = commercialProofEvidence({ newest: entry(null, null), integrity: { confirmed: false, reason: 'none', checks: [] }, now: NOW, baseUrl: 'http://x' });
    expect(body.proof).toEqual(content);
    expect(JSON.stringify(body)).not.toMatch(/secretNote|internal|Someone/);
    expect(publicProof({ ...content, subjectReference: 'ORD-1' }).subjectReference).toBe('ORD-1');
  });

  it('says NOT_CONFIRMED with ledger null when there is no evidence, and REVIEW_REQUIRED for an intact proof with an unknown source', () => {
    const none = commercialProofEvidence({ newest: entry(null, null), integrity: { confirmed: false, reason: 'none', checks: [] }, now: NOW, baseUrl: 'http://x' });
    expect(none.verification).toMatchObject({ status: 'NOT_CONFIRMED', proofVerified: false, ledger: null });
    expect(none.verification.synchronization).toMatchObject({ lastSynchronizedAt: null, lagSeconds: null, digestObserved: null });
    const unknown = commercialProofEvidence({ newest: entry(null, evidence), integrity: verified, now: NOW, baseUrl: 'http://x' });
    expect(unknown.verification).toMatchObject({ status: 'REVIEW_REQUIRED', currentSourceStatus: { disposition: 'UNKNOWN', state: 'UNKNOWN', observedAt: null } });
  });

  it('does not show malformed evidence as if it were evidence', () => {
    const body = commercialProofEvidence({ newest: entry(snap(1), { version: 1 }), integrity: { confirmed: false, reason: 'bad', checks: [] }, now: NOW, baseUrl: 'http://x' });
    expect(body.verification.ledger).toBeNull();
    expect(CommercialProofEvidence.safeParse(body).success).toBe(true);
  });
});
