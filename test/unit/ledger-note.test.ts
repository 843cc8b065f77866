import { checkpointText, parseCheckpointText } from '#verify/checks/checkpoint';
import { encodeVerifierKey, parseVerifierKey, verifyNote } from '../../functions/domain/ledger/node-crypto';
import { keyIdHex, parseNote } from '#verify/checks/note';
import { formatSignerKey, generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';

// The example key and note published with the C2SP signed-note reference implementation
// (golang.org/x/mod/sumdb/note): numbers only.
const VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const SIGNED = `${TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

/** Flips one bit of the signature (not the key id) on signature line `line`. */
function flipSignatureByte(note: string, line: number): string {
  const split = note.lastIndexOf('\n\n') + 2;
  const lines = note.slice(split).split('\n');
  const space = lines[line].lastIndexOf(' ');
  const payload = Buffer.from(lines[line].slice(space + 1), 'base64');
  payload[10] ^= 1;
  lines[line] = `${lines[line].slice(0, space)} ${payload.toString('base64')}`;
  return note.slice(0, split) + lines.join('\n');
}

describe('C2SP signed notes', () => {
  it('derives the published key id, verifier key and signature byte for byte', () => {
    const verifier = parseVerifierKey(VKEY);
    expect(verifier.name).toBe('PeterNeumann');
    expect(keyIdHex(verifier.keyId)).toBe('c74f20a3');
    const signer = signerFromKey(SKEY);
    expect(signer.verifierKey).toBe(VKEY);
    expect(encodeVerifierKey('PeterNeumann', verifier.publicKey)).toBe(VKEY);
    expect(signer.signNote(TEXT)).toBe(SIGNED);
  });

  it('opens the published note with its key', () => {
    const opened = verifyNote(SIGNED, [parseVerifierKey(VKEY)]);
    expect(opened.ok).toBe(true);
    if (opened.ok) expect(opened.note.text).toBe(TEXT);
  });

  it('refuses every one-character mangling of the verifier key', () => {
    for (let i = 0; i < VKEY.length; i++) {
      const mangled = VKEY.slice(0, i) + String.fromCharCode(VKEY.charCodeAt(i) + 1) + VKEY.slice(i + 1);
      expect(() => parseVerifierKey(mangled)).toThrow();
    }
    expect(() => parseVerifierKey(VKEY.slice(0, -1))).toThrow();
    expect(() => parseVerifierKey(`${VKEY}=`)).toThrow();
  });

  it('keeps key material that contains "+" (the last part takes the rest)', () => {
    const materialOf = (k: string) => k.split('+').slice(4).join('+');
    let key = generateSignerKey('example.org/log');
    for (let i = 0; i < 200 && !materialOf(key).includes('+'); i++) key = generateSignerKey('example.org/log');
    expect(materialOf(key)).toContain('+');
    const signer = signerFromKey(key);
    expect(parseVerifierKey(signer.verifierKey).name).toBe('example.org/log');
    expect(verifyNote(signer.signNote('hello\n'), [parseVerifierKey(signer.verifierKey)]).ok).toBe(true);
    const seed = Buffer.from(materialOf(key), 'base64').subarray(1);
    expect(formatSignerKey('example.org/log', seed)).toBe(key);
  });

  it('rejects a changed text, a changed signature, an untrusted signer and a bad signature from a trusted key', () => {
    const trusted = [parseVerifierKey(VKEY)];
    expect(verifyNote(SIGNED.replace('cryptography', 'cryptografy'), trusted).ok).toBe(false);
    expect(verifyNote(flipSignatureByte(SIGNED, 0), trusted).ok).toBe(false);
    const other = signerFromKey(generateSignerKey('PeterNeumann'));
    const byOther = other.signNote(TEXT);
    const refused = verifyNote(byOther, trusted);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.reason).toMatch(/no signature is from a trusted key/);
    // A trusted key's failing signature rejects the note even when another trusted one verifies.
    const both = `${SIGNED}${byOther.slice(byOther.lastIndexOf('\n\n') + 2)}`;
    const badFirst = flipSignatureByte(both, 0);
    expect(verifyNote(badFirst, [...trusted, parseVerifierKey(other.verifierKey)]).ok).toBe(false);
    expect(verifyNote(both, [...trusted, parseVerifierKey(other.verifierKey)]).ok).toBe(true);
    // Signatures by unknown keys (or unknown key ids) are ignored.
    expect(verifyNote(both, trusted).ok).toBe(true);
    expect(verifyNote(SIGNED.replace('x08go', 'x08gp'), trusted).ok).toBe(false);
  });

  it('refuses malformed notes', () => {
    expect(() => parseNote(TEXT)).toThrow(/blank line/);
    expect(() => parseNote(`${TEXT}\n- PeterNeumann abc=\n`)).toThrow(/em dash/);
    expect(() => parseNote(`${TEXT}\n\u2014 PeterNeumann x08go\n`)).toThrow();
    expect(() => parseNote('a\tb\n\n\u2014 n AAAAAAAA\n')).toThrow(/control/);
    expect(() => parseNote(SIGNED.slice(0, -1))).toThrow(/newline/);
  });
});

describe('C2SP tlog checkpoints', () => {
  const root = Buffer.alloc(32, 7);

  it('round-trips origin, size, root and extension lines', () => {
    const text = checkpointText({ origin: 'example.org/log', treeSize: 42, rootHash: root, extensions: ['ext one'] });
    expect(text).toBe(`example.org/log\n42\n${root.toString('base64')}\next one\n`);
    expect(parseCheckpointText(text)).toEqual({ origin: 'example.org/log', treeSize: 42, rootHash: root, extensions: ['ext one'] });
  });

  it('refuses malformed checkpoints', () => {
    const r = root.toString('base64');
    for (const bad of [`o\n01\n${r}\n`, `o\n-1\n${r}\n`, `o\n1.5\n${r}\n`, `o\n1\n${r.slice(0, -2)}\n`, 'o\n1\n', `o\n1\n${r}\n\n`, `o o\n1\n${r}\n`, `o\n1\n${r}`]) {
      expect(() => parseCheckpointText(bad)).toThrow();
    }
  });
});
