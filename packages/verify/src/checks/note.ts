import { ed25519Verify, sha256, type Steps } from './crypto-steps';
import { concatBytes, decodeBase64Strict, encodeBase64, readUint32BE, uint32BE, utf8 } from './encoding';

/**
 * C2SP signed notes (https://c2sp.org/signed-note) with Ed25519 signatures, the envelope of a
 * tlog checkpoint. A note is UTF-8 text ending in a newline, a blank line, then one or more
 * signature lines `— <key name> <base64(key id || signature)>`. The signature covers the text
 * including its final newline. A key id is the first four bytes (big-endian) of
 * SHA-256(key name || 0x0A || signature type || public key); a verifier key is written
 * `<name>+<hex key id>+<base64(signature type || public key)>`.
 * Pure: hashes and signatures are asked of the platform (crypto-steps.ts).
 */
export const SIGNATURE_TYPE_ED25519 = 0x01;
const ED25519_PUBLIC_KEY_SIZE = 32;
const ED25519_SIGNATURE_SIZE = 64;
/** More signature lines than this and a note is refused (the reference implementation's cap). */
export const MAX_NOTE_SIGNATURES = 100;
const SIGNATURE_PREFIX = '\u2014 ';

export class NoteError extends Error {
  override name = 'NoteError';
}

/** No lone surrogate halves: the text has one UTF-8 encoding. */
export const isWellFormedText = (text: string): boolean => !/\p{Cs}/u.test(text);

/** A key name: non-empty, no Unicode white space, no '+' (it separates the parts of an encoded key). */
export function isValidKeyName(name: string): boolean {
  return typeof name === 'string' && name.length > 0 && !/[\s+\u0085]/u.test(name) && isWellFormedText(name);
}

export function* keyIdOf(name: string, signatureType: number, publicKey: Uint8Array): Steps<number> {
  const digest = yield* sha256(concatBytes(utf8(name), Uint8Array.of(0x0a, signatureType), publicKey));
  return readUint32BE(digest, 0);
}

/**
 * Splits at the first `count - 1` plus signs: names and key ids hold no '+', but base64 key
 * material may, so the last part takes the rest.
 */
export function splitPlus(text: string, count: number): string[] | null {
  const parts: string[] = [];
  let rest = text;
  for (let i = 1; i < count; i++) {
    const at = rest.indexOf('+');
    if (at < 0) return null;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at + 1);
  }
  parts.push(rest);
  return parts;
}

/** A comma-separated list of keys (as LEDGER_VERIFIER_KEYS holds them): each trimmed, empty ones dropped. */
export const keyList = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key.length > 0);

export const keyIdHex = (keyId: number): string => keyId.toString(16).padStart(8, '0');

export interface VerifierKey {
  name: string;
  keyId: number;
  /** The raw 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
  /** The key in its C2SP text form. */
  encoded: string;
}

export function* encodeVerifierKeyOf(name: string, publicKey: Uint8Array): Steps<string> {
  const material = encodeBase64(concatBytes(Uint8Array.of(SIGNATURE_TYPE_ED25519), publicKey));
  return `${name}+${keyIdHex(yield* keyIdOf(name, SIGNATURE_TYPE_ED25519, publicKey))}+${material}`;
}

/** Parses `<name>+<hex key id>+<base64(0x01 || public key)>`; throws NoteError on anything else. */
export function* parseVerifierKeyOf(encoded: string): Steps<VerifierKey> {
  if (typeof encoded !== 'string') throw new NoteError('a verifier key is a string');
  const parts = splitPlus(encoded, 3);
  if (!parts) throw new NoteError('a verifier key has three parts separated by "+": name, key id, key');
  const [name, idHex, material] = parts;
  if (!isValidKeyName(name)) throw new NoteError('the verifier key name is empty or contains spaces');
  if (!/^[0-9a-f]{8}$/.test(idHex)) throw new NoteError('the verifier key id is not eight lower-case hex digits');
  const bytes = decodeBase64Strict(material);
  if (!bytes || bytes.length === 0) throw new NoteError('the verifier key material is not base64');
  if (bytes[0] !== SIGNATURE_TYPE_ED25519) throw new NoteError(`signature type 0x${bytes[0].toString(16)} is not supported (only Ed25519, 0x01)`);
  const publicKey = bytes.subarray(1);
  if (publicKey.length !== ED25519_PUBLIC_KEY_SIZE) throw new NoteError(`an Ed25519 public key has ${ED25519_PUBLIC_KEY_SIZE} bytes, not ${publicKey.length}`);
  const keyId = yield* keyIdOf(name, SIGNATURE_TYPE_ED25519, publicKey);
  if (keyIdHex(keyId) !== idHex) throw new NoteError('the verifier key id does not match its name and key');
  return { name, keyId, publicKey: publicKey.slice(), encoded };
}

export interface NoteSignature {
  name: string;
  keyId: number;
  signature: Uint8Array;
}

export interface Note {
  /** The signed text, including its final newline. */
  text: string;
  signatures: NoteSignature[];
}

/** Text a note may carry: well-formed Unicode, newline-terminated, no control characters but newline. */
export function checkNoteText(text: string): void {
  if (text.length === 0 || !text.endsWith('\n')) throw new NoteError('the note text must end with a newline');
  if (!isWellFormedText(text)) throw new NoteError('the note text is not well-formed Unicode');
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/.test(text)) throw new NoteError('the note text contains control characters');
}

export function signatureLine(name: string, keyId: number, signature: Uint8Array): string {
  return `${SIGNATURE_PREFIX}${name} ${encodeBase64(concatBytes(uint32BE(keyId), signature))}\n`;
}

/** Splits a note into its text and signature lines (syntax only; nothing is verified here). */
export function parseNote(message: string): Note {
  if (typeof message !== 'string') throw new NoteError('a note is a string');
  const split = message.lastIndexOf('\n\n');
  if (split < 0) throw new NoteError('the note has no blank line before its signatures');
  const text = message.slice(0, split + 1);
  checkNoteText(text);
  const block = message.slice(split + 2);
  if (!block.endsWith('\n')) throw new NoteError('the signature block must end with a newline');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) throw new NoteError(`the note has more than ${MAX_NOTE_SIGNATURES} signatures`);
  const signatures = lines.map((line) => {
    if (!line.startsWith(SIGNATURE_PREFIX)) throw new NoteError('a signature line must start with an em dash and a space');
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.lastIndexOf(' ');
    const name = rest.slice(0, space);
    if (space <= 0 || !isValidKeyName(name)) throw new NoteError('a signature line has no valid key name');
    const payload = decodeBase64Strict(rest.slice(space + 1));
    if (!payload || payload.length <= 4) throw new NoteError(`the signature by ${name} is not base64 of a key id and a signature`);
    return { name, keyId: readUint32BE(payload, 0), signature: payload.slice(4) };
  });
  return { text, signatures };
}

export type NoteVerification =
  | { ok: true; note: Note; verifiedBy: VerifierKey[] }
  | { ok: false; reason: string };

/**
 * Opens a note with the trusted keys: at least one signature must come from a trusted key
 * (same name and key id) and verify, and a signature from a trusted key that fails rejects the
 * whole note, as the signed-note specification requires. Signatures from unknown keys are ignored.
 */
export function* verifyNoteOf(message: string, trusted: readonly VerifierKey[]): Steps<NoteVerification> {
  let note: Note;
  try {
    note = parseNote(message);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const data = utf8(note.text);
  const verifiedBy: VerifierKey[] = [];
  for (const sig of note.signatures) {
    const key = trusted.find((k) => k.name === sig.name && k.keyId === sig.keyId);
    if (!key) continue;
    const valid = sig.signature.length === ED25519_SIGNATURE_SIZE && (yield* ed25519Verify(key.publicKey, data, sig.signature));
    if (!valid) return { ok: false, reason: `the signature by ${key.name}+${keyIdHex(key.keyId)} does not verify` };
    if (!verifiedBy.includes(key)) verifiedBy.push(key);
  }
  if (verifiedBy.length === 0) {
    const names = note.signatures.map((s) => `${s.name}+${keyIdHex(s.keyId)}`).join(', ');
    return { ok: false, reason: `no signature is from a trusted key (signed by: ${names || 'nobody'})` };
  }
  return { ok: true, note, verifiedBy };
}
