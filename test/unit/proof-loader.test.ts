import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import type { ProofHead } from '../../functions/domain/proofs';
import { DEMO_PROOFS, demoProofRecords } from '../../fixtures/demo-proofs';
import { attachLedgerEvidence } from '../../lib/loader/evidence';
import { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { InvalidRecordsError, validateRecords } from '../../lib/loader/load';

const ANCHOR = new Date('2026-11-22T12:00:00Z');
const demo = demoProofRecords(ANCHOR) as Record<string, any>[];
const good = demo.find((r) => r.reference === DEMO_PROOFS.current)!;

function problemsOf(records: unknown[]): string[] {
  try {
    validateRecords({ records });
    return [];
  } catch (error) {
    if (!(error instanceof InvalidRecordsError)) throw error;
    return error.problems.map((p) => `${p.index}:${p.field}`);
  }
}

describe('commercial proof records', () => {
  it('accepts every demo proof', () => {
    expect(problemsOf(demo)).toEqual([]);
  });

  it('reports bad proofs by record and field', () => {
    const where = problemsOf([
      { ...good, reference: 'P-1', source: { ...good.source, system: 'https://commerce.example/api' } },
      { ...good, reference: 'P-2', source: { ...good.source, digest: 'md5:abc' } },
      { ...good, reference: 'P-3', synchronizations: [{ at: good.issuedAt, state: 'CONFIRMED', digest: good.source.digest }] },
      { ...good, reference: 'P-4', claims: { 'Customer Name': 'x' } },
      { ...good, reference: 'P-5', synchronizations: [{ ...good.synchronizations[1] }, { ...good.synchronizations[0] }] },
      { ...good, reference: 'P-6', synchronizations: [{ ...good.synchronizations[0], state: 'LOST_IN_SPACE' }] },
      { ...good, reference: 'P-7', alterStoredContentAfterLogging: { issuer: 'someone else' } },
      { ...good, reference: 'P-8', apiKey: 'secret' },
    ]);
    expect(where).toEqual(
      expect.arrayContaining([
        '0:source.system',
        '1:source.digest',
        '2:synchronizations.0.at',
        '3:claims.Customer Name',
        '4:synchronizations.1.at',
        '5:synchronizations.0.state',
        '6:alterStoredContentAfterLogging',
        '7:(record)',
      ]),
    );
  });

  it('expands into an issuance entry and one entry per snapshot, all sharing the one logged version', () => {
    const [stored] = validateRecords({ records: [good] });
    expect(stored.kind).toBe('COMMERCIAL_PROOF');
    expect(stored.entries.map((e) => (e.entry as { type: string }).type)).toEqual(['PROOF_ISSUED', 'SOURCE_SYNCHRONIZED', 'SOURCE_SYNCHRONIZED']);
    expect(stored.entries.map((e) => (e.view as { synchronizations: number }).synchronizations)).toEqual([0, 1, 2]);
    expect(new Set(stored.entries.map((e) => e.head)).size).toBe(1);
  });

  it('logs the genuine content and stores the deliberately altered one, reporting it', () => {
    const signer = signerFromKey(generateSignerKey('test.example/ledger'));
    const records = validateRecords({ records: demo });
    const attachment = attachLedgerEvidence(records, new AppendOnlyLog(signer));
    expect(attachment).toEqual({ logged: demo.length, appended: demo.length, alteredAfterLogging: [DEMO_PROOFS.tampered] });
    for (const record of records) {
      const head = record.entries[0].head as ProofHead;
      expect(head).not.toHaveProperty('alterStoredContentAfterLogging');
      expect(head).not.toHaveProperty('anchored');
      expect(verifyEvidence(head.content, head.evidence!, [signer.verifierKey]).ok).toBe(record.reference !== DEMO_PROOFS.tampered);
    }
    const tampered = records.find((r) => r.reference === DEMO_PROOFS.tampered)!.entries[0].head as ProofHead;
    const original = demo.find((r) => r.reference === DEMO_PROOFS.tampered)!;
    expect(tampered.content.claims).toEqual(original.alterStoredContentAfterLogging.claims);
    expect(verifyEvidence({ ...tampered.content, claims: original.claims }, tampered.evidence!, [signer.verifierKey]).ok).toBe(true);
  });
});
