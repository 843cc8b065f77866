import fc from 'fast-check';
import canonicalize from 'canonicalize';
import { assessIntegrity, inspectIntegrity, trustedLedgerKeys } from '../../functions/domain/evidence';
import { canonicalBytes } from '#verify/checks/canonical';
import type { LogEvidence } from '#verify/checks/evidence-format';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import type { RecordHead } from '../../functions/domain/record';
import { AppendOnlyLog, LedgerIntegrityError } from '../../functions/ledger-writer/log';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';

const signer = signerFromKey(generateSignerKey('test.example/ledger'));
const KEYS = [signer.verifierKey];
const stranger = signerFromKey(generateSignerKey('test.example/ledger'));

const record = (i: number) => ({ reference: `REF-${i}`, title: `Record ${i}`, state: 'ACTIVE', amountOfParts: i, version: 1 });

function logOf(count: number): { log: AppendOnlyLog; records: ReturnType<typeof record>[] } {
  const log = new AppendOnlyLog(signer);
  const records = Array.from({ length: count }, (_, i) => record(i));
  records.forEach((r) => log.add(r, { reference: r.reference, version: 1 }));
  return { log, records };
}

const failed = (outcome: ReturnType<typeof verifyEvidence>) => outcome.checks.filter((c) => !c.ok).map((c) => c.name);

describe('RFC 8785 leaf data', () => {
  it('canonicalizes the RFC 8785 §3.2 sample exactly', () => {
    const sample = JSON.parse(String.raw`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`);
    expect(Buffer.from(canonicalBytes(sample)).toString('utf8')).toBe(String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`);
  });

  it('refuses what JCS cannot represent instead of changing it', () => {
    expect(() => canonicalBytes({ a: Number.NaN })).toThrow();
    expect(() => canonicalBytes({ a: Infinity })).toThrow();
    expect(() => canonicalBytes({ a: 'lone \ud800 half' })).toThrow(/surrogate/);
    expect(() => canonicalBytes(undefined)).toThrow();
  });

  it('is the canonical form whatever the key order', () => {
    expect(canonicalBytes({ b: 1, a: { d: 2, c: 3 } })).toEqual(canonicalBytes({ a: { c: 3, d: 2 }, b: 1 }));
  });
});

describe('verifyEvidence', () => {
  const { log, records } = logOf(37);
  const evidence = log.evidence(20, 1);

  it('passes every check for the record that was logged', () => {
    const outcome = verifyEvidence(records[20], evidence, KEYS);
    expect(outcome.ok).toBe(true);
    expect(outcome.checks.map((c) => c.name)).toEqual(['evidence-format', 'record-version', 'canonical-hash', 'inclusion-proof', 'checkpoint-signature']);
  });

  it('names the failing check', () => {
    expect(failed(verifyEvidence({ ...records[20], title: 'Changed' }, evidence, KEYS))).toEqual(['canonical-hash', 'inclusion-proof']);
    expect(failed(verifyEvidence(records[20], evidence, [stranger.verifierKey]))).toEqual(['checkpoint-signature']);
    expect(failed(verifyEvidence(records[20], evidence, []))).toEqual(['checkpoint-signature']);
    expect(failed(verifyEvidence(records[20], evidence, ['not a key']))).toEqual(['checkpoint-signature']);
    expect(failed(verifyEvidence({ ...records[20], version: 2 }, evidence, KEYS))).toEqual(['record-version', 'canonical-hash', 'inclusion-proof']);
    expect(failed(verifyEvidence(records[20], { ...evidence, leafIndex: 21 }, KEYS))).toEqual(['inclusion-proof']);
    expect(failed(verifyEvidence(records[20], { ...evidence, treeSize: 38 }, KEYS))).toEqual(['inclusion-proof']);
    expect(failed(verifyEvidence(records[20], { ...evidence, origin: 'elsewhere' }, KEYS))).toEqual(['checkpoint-signature']);
    expect(failed(verifyEvidence(records[20], { ...evidence, inclusionProof: evidence.inclusionProof.slice(1) }, KEYS))).toEqual(['inclusion-proof']);
    expect(failed(verifyEvidence(records[20], { version: 1 }, KEYS))[0]).toBe('evidence-format');
    expect(verifyEvidence(records[20], { version: 1 }, KEYS).ok).toBe(false);
  });

  it('refuses a checkpoint signed by a trusted key of another name than its origin', () => {
    const other = signerFromKey(generateSignerKey('other.example/ledger'));
    const resigned = other.signNote(evidence.checkpoint.slice(0, evidence.checkpoint.lastIndexOf('\n\n') + 1));
    expect(failed(verifyEvidence(records[20], { ...evidence, checkpoint: resigned }, [other.verifierKey]))).toEqual(['checkpoint-signature']);
  });

  it('proves every leaf, including against the checkpoint the log signed', () => {
    for (let i = 0; i < records.length; i++) expect(verifyEvidence(records[i], log.evidence(i, 1), KEYS).ok).toBe(true);
  });
});

/** Flips bit `bit` of a byte string and returns it. */
const flip = (bytes: Buffer, bit: number): Buffer => {
  const out = Buffer.from(bytes);
  out[Math.floor(bit / 8) % out.length] ^= 1 << bit % 8;
  return out;
};

function replaceInNote(note: string, lineIndex: number, edit: (line: string) => string): string {
  const lines = note.split('\n');
  lines[lineIndex] = edit(lines[lineIndex]);
  return lines.join('\n');
}

describe('any single changed bit fails verification (property)', () => {
  const arbitraryRecord = fc.record({
    reference: fc.stringMatching(/^[A-Z]{3}-[0-9]{4}$/),
    title: fc.string({ minLength: 1, maxLength: 40 }),
    state: fc.constantFrom('ACTIVE', 'DELIVERED', 'ARCHIVED'),
    count: fc.integer(),
    version: fc.integer({ min: 1, max: 9 }),
  });
  const setup = (size: number, at: number, r: object) => {
    const log = new AppendOnlyLog(signer);
    const index = Math.min(at, size - 1);
    for (let i = 0; i < size; i++) log.add(i === index ? r : { filler: i }, { reference: 'X', version: 1 });
    return { evidence: log.evidence(index, (r as { version: number }).version) };
  };
  const params = fc.tuple(fc.integer({ min: 1, max: 300 }), fc.nat(300), arbitraryRecord, fc.nat(100_000));

  it('in the record', () => {
    fc.assert(
      fc.property(params, ([size, at, r, bit]) => {
        const { evidence } = setup(size, at, r);
        const original = Buffer.from(canonicalBytes(r));
        let changed: unknown;
        try {
          changed = JSON.parse(flip(original, bit).toString('utf8'));
        } catch {
          return; // no longer JSON: nothing anyone could present as the record
        }
        fc.pre(canonicalize(changed) !== original.toString('utf8'));
        expect(verifyEvidence(changed, evidence, KEYS).ok).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('in the inclusion proof', () => {
    fc.assert(
      fc.property(params, ([size, at, r, bit]) => {
        const { evidence } = setup(Math.max(size, 2), at, r);
        const i = bit % evidence.inclusionProof.length;
        const proof = [...evidence.inclusionProof];
        proof[i] = flip(Buffer.from(proof[i], 'base64'), bit).toString('base64');
        expect(verifyEvidence(r, { ...evidence, inclusionProof: proof }, KEYS).ok).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('in the checkpoint root', () => {
    fc.assert(
      fc.property(params, ([size, at, r, bit]) => {
        const { evidence } = setup(size, at, r);
        const checkpoint = replaceInNote(evidence.checkpoint, 2, (root) => flip(Buffer.from(root, 'base64'), bit).toString('base64'));
        const outcome = verifyEvidence(r, { ...evidence, checkpoint }, KEYS);
        expect(outcome.ok).toBe(false);
        expect(failed(outcome)).toEqual(['inclusion-proof', 'checkpoint-signature']);
      }),
      { numRuns: 100 },
    );
  });

  it('in the signature', () => {
    fc.assert(
      fc.property(params, ([size, at, r, bit]) => {
        const { evidence } = setup(size, at, r);
        const lines = evidence.checkpoint.split('\n');
        const signatureLine = lines.length - 2;
        const checkpoint = replaceInNote(evidence.checkpoint, signatureLine, (line) => {
          const space = line.lastIndexOf(' ');
          return `${line.slice(0, space)} ${flip(Buffer.from(line.slice(space + 1), 'base64'), bit).toString('base64')}`;
        });
        const outcome = verifyEvidence(r, { ...evidence, checkpoint }, KEYS);
        expect(failed(outcome)).toEqual(['checkpoint-signature']);
      }),
      { numRuns: 100 },
    );
  });
});

describe('assessIntegrity: the one entry point handlers use', () => {
  const { log, records } = logOf(5);
  const head = (content: object, evidence: LogEvidence | null, version = 1): RecordHead => ({ kind: 'OBJECT', reference: 'REF-3', version, content, evidence });
  const previous = process.env.LEDGER_VERIFIER_KEYS;
  afterEach(() => {
    if (previous === undefined) delete process.env.LEDGER_VERIFIER_KEYS;
    else process.env.LEDGER_VERIFIER_KEYS = previous;
  });

  it('confirms verified evidence with a configured key', () => {
    process.env.LEDGER_VERIFIER_KEYS = ` ${stranger.verifierKey} , ${signer.verifierKey} `;
    expect(trustedLedgerKeys()).toEqual([stranger.verifierKey, signer.verifierKey]);
    expect(assessIntegrity(head(records[3], log.evidence(3, 1)))).toEqual({ confirmed: true, reason: expect.stringMatching(/verify/) });
  });

  it('fails closed: no key configured, no evidence, evidence for another version, a failed check', () => {
    delete process.env.LEDGER_VERIFIER_KEYS;
    expect(assessIntegrity(head(records[3], log.evidence(3, 1))).confirmed).toBe(false);
    expect(assessIntegrity(head(records[3], log.evidence(3, 1))).reason).toMatch(/No ledger verifier key/);
    process.env.LEDGER_VERIFIER_KEYS = signer.verifierKey;
    expect(assessIntegrity(head(records[3], null))).toEqual({ confirmed: false, reason: expect.stringMatching(/No ledger evidence/) });
    expect(assessIntegrity(head({ ...records[3], version: 2 }, log.evidence(3, 1), 2)).reason).toMatch(/covers version 1, not the version shown \(2\)/);
    const tampered = inspectIntegrity(head({ ...records[3], title: 'Altered' }, log.evidence(3, 1)));
    expect(tampered.confirmed).toBe(false);
    expect(tampered.reason).toMatch(/canonical-hash/);
    process.env.LEDGER_VERIFIER_KEYS = stranger.verifierKey;
    expect(assessIntegrity(head(records[3], log.evidence(3, 1))).reason).toMatch(/checkpoint-signature/);
  });

  it('given the stored text, remembers the outcome by that text and the trusted keys, and equals the outcome without it', () => {
    const heads = [head(records[3], log.evidence(3, 1)), head({ ...records[3], title: 'Altered' }, log.evidence(3, 1)), head(records[2], null), head(records[1], log.evidence(1, 1), 2)];
    for (const keys of [[signer.verifierKey], [stranger.verifierKey], []]) {
      for (const h of heads) {
        const text = JSON.stringify(h);
        const first = assessIntegrity(h, text, keys);
        expect(first).toEqual(assessIntegrity(h, undefined, keys));
        // The same stored text again: the remembered outcome itself, not a second verification.
        expect(assessIntegrity(JSON.parse(text) as RecordHead, text, keys)).toBe(first);
      }
    }
    // Different keys never share an outcome: the signer's key confirms, a stranger's does not, none does not.
    const text = JSON.stringify(heads[0]);
    expect([[signer.verifierKey], [stranger.verifierKey], []].map((keys) => assessIntegrity(heads[0], text, keys).confirmed)).toEqual([true, false, false]);
    // A tampered head is another text: its own outcome.
    expect(assessIntegrity(heads[1], JSON.stringify(heads[1]), [signer.verifierKey]).reason).toMatch(/canonical-hash/);
  });

  it('remembers a bounded number of heads: the oldest is verified again once 256 newer ones were seen', () => {
    const keys = [signer.verifierKey];
    const h = head(records[3], log.evidence(3, 1));
    const text = JSON.stringify(h);
    const first = assessIntegrity(h, text, keys);
    for (let i = 0; i < 256; i++) assessIntegrity(h, `${text} ${i}`, keys);
    const again = assessIntegrity(h, text, keys);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});

describe('the append-only log', () => {
  it('appends content once: logging the same content again keeps its leaf', () => {
    const log = new AppendOnlyLog(signer);
    expect(log.add(record(1), { reference: 'REF-1', version: 1 })).toEqual({ leafIndex: 0, appended: true });
    expect(log.add(record(2), { reference: 'REF-2', version: 1 })).toEqual({ leafIndex: 1, appended: true });
    expect(log.add(record(1), { reference: 'REF-1', version: 1 })).toEqual({ leafIndex: 0, appended: false });
    expect(log.add({ ...record(1), title: 'changed' }, { reference: 'REF-1', version: 1 })).toEqual({ leafIndex: 2, appended: true });
    expect(log.newLeaves.map((l) => l.index)).toEqual([0, 1, 2]);
  });

  it('reopens on its stored leaves and checkpoint, keeps the published checkpoint while nothing is added, and extends history', () => {
    const { log } = logOf(10);
    const leaves = Array.from({ length: 10 }, (_, i) => Buffer.from(log.evidence(i, 1).leafHash, 'base64'));
    const checkpoint = log.checkpoint();
    const reopened = new AppendOnlyLog(signer, { leaves, checkpoint });
    expect(reopened.add(record(4), { reference: 'REF-4', version: 1 })).toEqual({ leafIndex: 4, appended: false });
    expect(reopened.checkpoint()).toBe(checkpoint);
    reopened.add(record(99), { reference: 'REF-99', version: 1 });
    expect(reopened.checkpoint()).not.toBe(checkpoint);
    expect(verifyEvidence(record(4), reopened.evidence(4, 1), KEYS).ok).toBe(true);
    expect(reopened.newLeaves.map((l) => l.index)).toEqual([10]);
  });

  it('refuses stored history that does not reproduce its signed checkpoint, or another key', () => {
    const { log } = logOf(6);
    const leaves = Array.from({ length: 6 }, (_, i) => Buffer.from(log.evidence(i, 1).leafHash, 'base64'));
    const checkpoint = log.checkpoint();
    const rewritten = leaves.map((l, i) => (i === 2 ? flip(l, 0) : l));
    expect(() => new AppendOnlyLog(signer, { leaves: rewritten, checkpoint })).toThrow(LedgerIntegrityError);
    expect(() => new AppendOnlyLog(signer, { leaves: leaves.slice(0, 5), checkpoint })).toThrow(LedgerIntegrityError);
    expect(() => new AppendOnlyLog(stranger, { leaves, checkpoint })).toThrow(/not signed by this signing key/);
    expect(() => new AppendOnlyLog(signer, { leaves, checkpoint: null })).toThrow(LedgerIntegrityError);
  });
});
