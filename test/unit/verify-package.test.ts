import fc from 'fast-check';
import { CREDENTIAL_KIND, STATUS_LIST_KIND, type CredentialContent, type StatusListContent } from '../../functions/domain/credentials/model';
import { statusListCredential } from '../../functions/domain/credentials/projection';
import { verifyCredential } from '../../functions/domain/credentials/verification';
import { consistencyProof } from '../../functions/domain/ledger/consistency';
import { checkCosignatures, parseWitnessKey, verifyConsistency as verifyConsistencyOnNode, verifyEvidence as verifyOnNode } from '../../functions/domain/ledger/node-crypto';
import { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { addSignatureLines } from '../../lib/ledger/cosign-log';
import { evidenceSubject, UnrecognizedResponseError } from '#verify/responses';
import { verifyCheckpoint, verifyConsistency, verifyEvidence, verifyRecord } from '#verify/verify';
import { MerkleTree } from '#verify/node/merkle-tree';
import { leafHash } from '#verify/node/hashing';
import { generateWitnessKey, witnessFromKey } from '#verify/node/witness';

/**
 * The verifier package's public API (packages/verify/src/verify.ts) on WebCrypto, against the
 * service's own answers and against the same checks on node:crypto (the service's side): the same
 * verdicts, check for check. test/e2e/verify-package.test.ts uses the packed package itself.
 */
const signer = signerFromKey(generateSignerKey('verify-package.example/ledger'));
const KEYS = [signer.verifierKey];
const NOW = '2026-11-24T12:00:00.000Z';
const BASE = 'https://trust.example.com';

function logged<T extends { version: number }>(contents: T[]): { log: AppendOnlyLog; evidence: ReturnType<AppendOnlyLog['evidence']>[] } {
  const log = new AppendOnlyLog(signer);
  const indexes = contents.map((c, i) => log.add(c, { reference: `R-${i}`, version: c.version }).leafIndex);
  log.checkpoint();
  return { log, evidence: indexes.map((index, i) => log.evidence(index, contents[i].version)) };
}

const credential = (id: string): CredentialContent => ({
  credentialId: id,
  credentialType: 'MembershipCredential',
  title: 'Membership',
  issuer: 'did:web:issuer.example.org',
  validFrom: '2026-01-01T00:00:00.000Z',
  validUntil: '2027-01-01T00:00:00.000Z',
  subject: { type: 'Member', claims: { level: 'GOLD' } },
  status: 'ACTIVE',
  statusSince: '2026-01-01T00:00:00.000Z',
  statusList: 'demo-2026',
  statusSlots: [{ statusPurpose: 'revocation', listId: 'demo-2026-revocation', statusListIndex: 7 }],
  freshnessSeconds: 3600,
  version: 1,
});
const list: StatusListContent = { listId: 'demo-2026-revocation', statusPurpose: 'revocation', issuer: 'did:web:issuer.example.org', entries: 131_072, encodedList: 'uH4sIAAAAAAAAA-3OMQEAAAgDoB32z2yL6QEJSAA', publishedAt: NOW, version: 2 };

/** A credential result and a status list exactly as the service's domain builds them, with logged evidence. */
function serviceAnswers() {
  const content = credential('CRED-1');
  const { evidence } = logged<{ version: number }>([content, list]);
  const head = { kind: CREDENTIAL_KIND, reference: 'CRED-1', version: 1, content, evidence: evidence[0] };
  const answer = verifyCredential({
    newest: { at: NOW, entry: { at: NOW, type: 'ISSUED', status: 'ACTIVE', previousStatus: null, source: 'issuer' }, view: { status: 'ACTIVE', lastConfirmedAt: NOW }, head } as never,
    evaluatedAt: NOW,
    integrity: { confirmed: true, reason: 'confirmed' },
    baseUrl: BASE,
  });
  const statusList = statusListCredential({ kind: STATUS_LIST_KIND, reference: 'status-list/demo-2026-revocation', version: 2, content: list, evidence: evidence[1] }, BASE);
  return { credentialAnswer: answer, statusList };
}

describe('answers of the service', () => {
  it('a credential result and a status list verify from what they carry, and show only what they logged', async () => {
    const { credentialAnswer, statusList } = serviceAnswers();
    const fromCredential = await verifyEvidence(credentialAnswer, { trustedKeys: KEYS });
    expect(fromCredential).toMatchObject({ ok: true, kind: 'credential', reference: 'CRED-1', version: 1, serviceSaid: true });
    expect(fromCredential.checks.map((c) => c.name)).toEqual(['evidence-format', 'record-version', 'canonical-hash', 'inclusion-proof', 'checkpoint-signature', 'shown-fields']);
    const fromList = await verifyEvidence(statusList, { trustedKeys: KEYS });
    expect(fromList).toMatchObject({ ok: true, kind: 'status-list', reference: 'demo-2026-revocation', version: 2, leafIndex: 1, treeSize: 2, serviceSaid: null });

    const otherIssuer = { ...credentialAnswer, issuer: 'did:web:someone-else.example' };
    expect((await verifyEvidence(otherIssuer, { trustedKeys: KEYS })).checks.filter((c) => !c.ok)).toEqual([
      { name: 'shown-fields', ok: false, detail: "issuer is not the logged record's issuer" },
    ]);
    const otherBits = { ...statusList, credentialSubject: { ...statusList.credentialSubject, encodedList: 'uH4sIAAAAAAAAA-3OMQEAAAgDoB32z2yL6QEJSAB' } };
    expect((await verifyEvidence(otherBits, { trustedKeys: KEYS })).checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['shown-fields']);
    const otherRecord = { ...statusList, logged: { ...statusList.logged, record: { ...list, encodedList: otherBits.credentialSubject.encodedList } } };
    // Changing both the list shown and the record logged is caught by the ledger instead.
    expect((await verifyEvidence({ ...otherRecord, credentialSubject: otherBits.credentialSubject }, { trustedKeys: KEYS })).checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['canonical-hash', 'inclusion-proof']);
  });

  it('an answer without evidence fails every check, saying there is none', async () => {
    const { credentialAnswer } = serviceAnswers();
    const result = await verifyEvidence({ ...credentialAnswer, logged: { record: credentialAnswer.logged.record, evidence: null } }, { trustedKeys: KEYS });
    expect(result.ok).toBe(false);
    expect(result.checks[0]).toEqual({ name: 'evidence-format', ok: false, detail: 'there is no ledger evidence: integrity cannot be confirmed' });
    expect(result.checks.slice(1, 5).every((c) => !c.ok && c.detail === 'not checked: there is no evidence')).toBe(true);
  });

  it('a problem or anything else is refused as an answer, never verified', async () => {
    await expect(verifyEvidence({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'No record' }, { trustedKeys: KEYS })).rejects.toThrow(/is a problem \(404 Not Found: No record\)/);
    await expect(verifyEvidence([], { trustedKeys: KEYS })).rejects.toBeInstanceOf(UnrecognizedResponseError);
  });

  it('any JSON is either refused as no answer of the service or verified without throwing (property)', async () => {
    const answer = fc.oneof(
      fc.jsonValue(),
      fc.record({ schemaVersion: fc.constantFrom('svc.living-object-resolution.v1', 'svc.commercial-proof-evidence.v1', 'svc.credential-verification.v1'), object: fc.jsonValue(), proof: fc.jsonValue(), current: fc.jsonValue(), verification: fc.jsonValue(), logged: fc.jsonValue(), checks: fc.jsonValue() }, { requiredKeys: ['schemaVersion'] }),
      fc.record({ type: fc.constant(['VerifiableCredential', 'BitstringStatusListCredential']), logged: fc.jsonValue(), credentialSubject: fc.jsonValue(), id: fc.jsonValue() }),
      fc.record({ record: fc.jsonValue(), evidence: fc.jsonValue() }),
    );
    await fc.assert(
      fc.asyncProperty(answer, async (candidate) => {
        let subject;
        try {
          subject = evidenceSubject(candidate);
        } catch (error) {
          expect(error).toBeInstanceOf(UnrecognizedResponseError);
          return;
        }
        const result = await verifyEvidence(candidate, { trustedKeys: KEYS });
        expect(result.ok).toBe(false);
        expect(result.kind).toBe(subject.kind);
        expect(result.checks.slice(0, 5).map((c) => c.name)).toEqual(['evidence-format', 'record-version', 'canonical-hash', 'inclusion-proof', 'checkpoint-signature']);
      }),
      { seed: 2024, numRuns: 1000 },
    );
  });
});

describe('WebCrypto in the package and node:crypto in the service give the same verdicts', () => {
  it('on records logged and altered, with the right key and a stranger’s (property)', async () => {
    const stranger = signerFromKey(generateSignerKey(signer.name));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.nat(), fc.constantFrom('none', 'record', 'version', 'key'), async (size, at, tampering) => {
        const records = Array.from({ length: size }, (_, i) => ({ reference: `REF-${i}`, n: i, version: 1 }));
        const { evidence } = logged(records);
        const i = at % size;
        const record = tampering === 'record' ? { ...records[i], n: -1 } : tampering === 'version' ? { ...records[i], version: 2 } : records[i];
        const keys = tampering === 'key' ? [stranger.verifierKey] : KEYS;
        const inPackage = await verifyRecord(record, evidence[i], { trustedKeys: keys });
        const onServer = verifyOnNode(record, evidence[i], keys);
        expect(inPackage.checks).toEqual(onServer.checks);
        expect(inPackage.ok).toBe(tampering === 'none');
        expect(inPackage).toMatchObject({ leafIndex: i, treeSize: size, origin: signer.name, version: 1 });
      }),
      { seed: 8785, numRuns: 40 },
    );
  });
});

describe('verifyCheckpoint: the log key and k of n witnesses', () => {
  const witnesses = [witnessFromKey(generateWitnessKey('w1.example/witness')), witnessFromKey(generateWitnessKey('w2.example/witness'))];
  const note = logged([{ version: 1, n: 1 }]).log.checkpoint();
  const cosigned = addSignatureLines(note, [witnesses[0].cosign(note, 1_700_000_000)]);
  const witnessKeys = witnesses.map((w) => w.witnessKey);

  it('counts valid cosignatures as the service does, and refuses a forged one', async () => {
    for (const [text, quorum, expected] of [
      [cosigned, 1, true],
      [cosigned, 2, false],
      [note, 1, false],
      [note, 0, true],
      [cosigned.replace(/(— w1\.example\/witness \S{20})(\S)/, (_, head: string, c: string) => `${head}${c === 'A' ? 'B' : 'A'}`), 1, false],
    ] as const) {
      const result = await verifyCheckpoint(text, { trustedKeys: KEYS, witnesses: witnessKeys, quorum });
      const onServer = checkCosignatures(text, { witnesses: witnessKeys.map(parseWitnessKey), required: quorum });
      expect([result.ok, result.checks[1]]).toEqual([expected, { name: 'witness-cosignatures', ok: onServer.ok, detail: onServer.detail }]);
      expect(result.checks[0]).toMatchObject({ name: 'checkpoint-signature', ok: true });
    }
  });

  it('names the tree it verified, and fails a checkpoint signed by another key', async () => {
    expect(await verifyCheckpoint(note, { trustedKeys: KEYS })).toMatchObject({ ok: true, origin: signer.name, treeSize: 1 });
    const other = signerFromKey(generateSignerKey(signer.name));
    expect((await verifyCheckpoint(note, { trustedKeys: [other.verifierKey] })).checks).toEqual([expect.objectContaining({ name: 'checkpoint-signature', ok: false })]);
  });
});

describe('verifyConsistency', () => {
  it('agrees with the service on proofs between random sizes, in every form it takes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 300 }), fc.boolean(), async (first, extra, flip) => {
        const second = first + extra;
        const tree = new MerkleTree();
        for (let i = 0; i < second; i++) tree.append(leafHash(Buffer.from(`entry ${i}`)));
        const proof = consistencyProof(first, second, Array.from({ length: second }, (_, i) => tree.leaf(i)));
        const hashes = proof.map((h) => Buffer.from(h));
        if (flip && hashes.length > 0) hashes[0][0] ^= 1;
        const text = hashes.map((h) => h.toString('base64'));
        const older = { treeSize: first, rootHash: tree.root(first).toString('base64') };
        const newer = { treeSize: second, rootHash: tree.root(second).toString('base64') };
        const expected = verifyConsistencyOnNode(first, second, tree.root(first), tree.root(second), hashes);
        expect(expected).toBe(!flip || hashes.length === 0);
        expect((await verifyConsistency(older, newer, text)).ok).toBe(expected);
        expect((await verifyConsistency(older, newer, { from: first, to: second, proof: text })).ok).toBe(expected);
      }),
      { seed: 9162, numRuns: 60 },
    );
  });

  it('takes signed checkpoints, verifying them first when given keys, and refuses a proof for other sizes', async () => {
    const log = new AppendOnlyLog(signer);
    for (let i = 0; i < 5; i++) log.add({ n: i, version: 1 }, { reference: `C-${i}`, version: 1 });
    const older = log.checkpoint();
    for (let i = 5; i < 12; i++) log.add({ n: i, version: 1 }, { reference: `C-${i}`, version: 1 });
    const newer = log.checkpoint();
    const tree = new MerkleTree();
    for (let i = 0; i < 12; i++) tree.append(leafHash(Buffer.from(JSON.stringify({ n: i, version: 1 }))));
    const proof = consistencyProof(5, 12, Array.from({ length: 12 }, (_, i) => tree.leaf(i))).map((h) => h.toString('base64'));
    expect(await verifyConsistency(older, newer, { from: 5, to: 12, proof }, { trustedKeys: KEYS })).toMatchObject({ ok: true, from: 5, to: 12 });
    expect((await verifyConsistency(older, newer, { from: 4, to: 12, proof }, { trustedKeys: KEYS })).detail).toMatch(/not from 5 to 12/);
    const stranger = signerFromKey(generateSignerKey(signer.name));
    expect((await verifyConsistency(older, newer, proof, { trustedKeys: [stranger.verifierKey] })).detail).toMatch(/^the older checkpoint: the checkpoint is not signed by a trusted key/);
  });
});
