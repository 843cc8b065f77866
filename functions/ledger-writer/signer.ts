import { sign } from 'node:crypto';
import { checkpointText, type Checkpoint } from '#verify/checks/checkpoint';
import { decodeBase64Strict } from '#verify/checks/encoding';
import { encodeVerifierKey, keyIdFor } from '../domain/ledger/node-crypto';
import { newSeed, privateKeyFromSeed, publicKeyBytes } from '#verify/node/node-crypto';
import {
  checkNoteText,
  isValidKeyName,
  keyIdHex,
  SIGNATURE_TYPE_ED25519,
  signatureLine,
  splitPlus,
} from '#verify/checks/note';

/**
 * What the log needs from a signing key: its name (the log's origin), its verifier key, and an
 * Ed25519 signature over a note text. A key held in AWS KMS answers asynchronously
 * (kms-signer.ts); a key file answers at once (LedgerSigner).
 */
export interface CheckpointSigner {
  name: string;
  keyId: number;
  /** The matching public verifier key, `<name>+<hex key id>+<base64(0x01 || public key)>`. */
  verifierKey: string;
  /** Signs a note text (ending in a newline) and returns the whole signed note. */
  signNoteAsync(text: string): Promise<string>;
}

/**
 * The log's Ed25519 signing key in the C2SP signer-key text form
 * `PRIVATE+KEY+<name>+<hex key id>+<base64(0x01 || 32-byte seed)>` (as golang.org/x/mod/sumdb/note
 * writes it), so the same key works with the Go tooling. The key name is the log's origin.
 */
export interface LedgerSigner extends CheckpointSigner {
  /** Signs a note text (ending in a newline) and returns the whole signed note. */
  signNote(text: string): string;
  /** Signs a checkpoint; Ed25519 is deterministic, so the same checkpoint always yields the same note. */
  signCheckpoint(checkpoint: Checkpoint): string;
}

export class SigningKeyError extends Error {
  override name = 'SigningKeyError';
}

export function formatSignerKey(name: string, seed: Uint8Array): string {
  const publicKey = publicKeyBytes(privateKeyFromSeed(seed));
  const id = keyIdHex(keyIdFor(name, SIGNATURE_TYPE_ED25519, publicKey));
  return `PRIVATE+KEY+${name}+${id}+${Buffer.concat([Buffer.from([SIGNATURE_TYPE_ED25519]), seed]).toString('base64')}`;
}

/** A new random signing key for a log origin, in the C2SP signer-key form. */
export function generateSignerKey(origin: string): string {
  if (!isValidKeyName(origin)) throw new SigningKeyError('a log origin must be non-empty, without spaces or "+" (e.g. trust.example.com/ledger)');
  return formatSignerKey(origin, newSeed());
}

export function signerFromKey(encoded: string): LedgerSigner {
  const parts = splitPlus(encoded.trim(), 5);
  if (!parts || parts[0] !== 'PRIVATE' || parts[1] !== 'KEY') {
    throw new SigningKeyError('a signing key has the form PRIVATE+KEY+<name>+<hex key id>+<base64 key>');
  }
  const [, , name, idHex, material] = parts;
  if (!isValidKeyName(name)) throw new SigningKeyError('the signing key name is empty or contains spaces');
  const bytes = decodeBase64Strict(material);
  if (!bytes || bytes.length !== 33 || bytes[0] !== SIGNATURE_TYPE_ED25519) throw new SigningKeyError('the signing key is not an Ed25519 seed (0x01 and 32 bytes, base64)');
  const privateKey = privateKeyFromSeed(bytes.subarray(1));
  const publicKey = publicKeyBytes(privateKey);
  const keyId = keyIdFor(name, SIGNATURE_TYPE_ED25519, publicKey);
  if (keyIdHex(keyId) !== idHex) throw new SigningKeyError('the signing key id does not match its name and key');
  const signNote = (text: string): string => {
    checkNoteText(text);
    const signature = sign(null, Buffer.from(text, 'utf8'), privateKey);
    return `${text}\n${signatureLine(name, keyId, signature)}`;
  };
  return {
    name,
    keyId,
    verifierKey: encodeVerifierKey(name, publicKey),
    signNote,
    signNoteAsync: async (text) => signNote(text),
    signCheckpoint: (checkpoint) => signNote(checkpointText(checkpoint)),
  };
}
