import fc from 'fast-check';
import { runStepsAsync } from '#verify/checks/crypto-steps';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { verifyEvidenceSteps } from '#verify/checks/evidence';
import { webCrypto } from '#verify/web-crypto';
import { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';

/**
 * The trust receipt runs the same checks (verify.ts) with the browser's WebCrypto. Node has the
 * same WebCrypto API, so here both platforms answer the same cases and must agree check for check.
 * Each case has its own new key and log, so no verdict remembered from an earlier run answers for
 * WebCrypto: the web run goes first and really checks the hashes and the signature.
 */
const web = webCrypto();

function caseOf(size: number, at: number, seed: number) {
  const signer = signerFromKey(generateSignerKey(`web${seed}.example/ledger`));
  const log = new AppendOnlyLog(signer);
  const records = Array.from({ length: size }, (_, i) => ({ reference: `REF-${seed}-${i}`, state: 'ACTIVE', version: 1, n: i }));
  records.forEach((r) => log.add(r, { reference: r.reference, version: 1 }));
  const index = at % size;
  return { signer, record: records[index], evidence: log.evidence(index, 1) };
}

const tamperings = ['none', 'record', 'proof', 'signature', 'key', 'root'] as const;

describe('WebCrypto and node:crypto give the same verdicts', () => {
  it('on valid and tampered evidence (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 70 }), fc.nat(100), fc.constantFrom(...tamperings), fc.nat(1e9), async (size, at, tampering, seed) => {
        const { signer, record, evidence } = caseOf(size, at, seed);
        const stranger = signerFromKey(generateSignerKey(signer.name));
        let shown: unknown = record;
        let ev = evidence;
        let keys = [signer.verifierKey];
        if (tampering === 'record') shown = { ...record, state: 'RETURNED' };
        if (tampering === 'proof' && ev.inclusionProof.length > 0) ev = { ...ev, inclusionProof: [ev.inclusionProof[0].replace(/^./, (c) => (c === 'A' ? 'B' : 'A')), ...ev.inclusionProof.slice(1)] };
        if (tampering === 'signature') ev = { ...ev, checkpoint: ev.checkpoint.replace(/ (\S)(\S*)\n$/, (_, c: string, rest: string) => ` ${c}${rest.slice(0, 10)}${rest[10] === 'A' ? 'B' : 'A'}${rest.slice(11)}\n`) };
        if (tampering === 'key') keys = [stranger.verifierKey];
        if (tampering === 'root') ev = { ...ev, checkpoint: stranger.signNote(ev.checkpoint.slice(0, ev.checkpoint.indexOf('\n\n') + 1)) };
        const inBrowser = await runStepsAsync(verifyEvidenceSteps(shown, ev, keys), web);
        const onServer = verifyEvidence(shown, ev, keys);
        expect(inBrowser).toEqual(onServer);
        expect(inBrowser.ok).toBe(tampering === 'none' || (tampering === 'proof' && evidence.inclusionProof.length === 0));
      }),
      { seed: 9162, numRuns: 60 },
    );
  });
});
