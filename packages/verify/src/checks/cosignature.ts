import type { Steps } from './crypto-steps';
import { ed25519Verify } from './crypto-steps';
import { decodeBase64Strict, utf8 } from './encoding';
import { isValidKeyName, keyIdHex, keyIdOf, NoteError, parseNote, splitPlus } from './note';

/**
 * C2SP tlog-cosignature (https://c2sp.org/tlog-cosignature), the Ed25519 type: a witness's note
 * signature on a checkpoint, saying it saw the log grow consistently up to it. The key id is
 * SHA-256(name || 0x0A || 0x04 || public key)[:4]; the signature is a u64 big-endian POSIX
 * timestamp followed by an Ed25519 signature over
 *   "cosignature/v1\n" "time <timestamp>\n" <checkpoint text>
 * Pure, like the other checks: the platform answers the hashes and signature checks.
 */
export const SIGNATURE_TYPE_COSIGNATURE_V1 = 0x04;
const TIMESTAMP_SIZE = 8;
const ED25519_SIGNATURE_SIZE = 64;

/** A witness's cosigning key: name, key id, raw Ed25519 public key, its text form. */
export interface WitnessKey {
  name: string;
  keyId: number;
  publicKey: Uint8Array;
  encoded: string;
}

/** SHA-256(name || 0x0A || 0x04 || public key)[:4], big-endian: the signed-note key id of type 0x04. */
export const witnessKeyIdOf = (name: string, publicKey: Uint8Array): Steps<number> => keyIdOf(name, SIGNATURE_TYPE_COSIGNATURE_V1, publicKey);

/** The message a witness signs for a checkpoint text at a time (seconds since the epoch). */
export function cosignatureMessage(checkpointText: string, timestamp: number): Uint8Array {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new NoteError('a cosignature timestamp is a whole number of seconds');
  return utf8(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`);
}

/** Parses a witness verifier key `<name>+<hex key id>+<base64(0x04 || public key)>`; throws NoteError otherwise. */
export function* parseWitnessKeyOf(encoded: string): Steps<WitnessKey> {
  const parts = typeof encoded === 'string' ? splitPlus(encoded.trim(), 3) : null;
  if (!parts) throw new NoteError('a witness key has three parts separated by "+": name, key id, key');
  const [name, idHex, material] = parts;
  if (!isValidKeyName(name)) throw new NoteError('the witness key name is empty or contains spaces');
  const bytes = decodeBase64Strict(material);
  if (!bytes || bytes.length !== 33 || bytes[0] !== SIGNATURE_TYPE_COSIGNATURE_V1) {
    throw new NoteError('a witness key is 0x04 (cosignature/v1, Ed25519) and a 32-byte public key, base64');
  }
  const publicKey = bytes.slice(1);
  const keyId = yield* witnessKeyIdOf(name, publicKey);
  if (keyIdHex(keyId) !== idHex) throw new NoteError(`the witness key id of ${name} does not match its name and key`);
  return { name, keyId, publicKey, encoded: encoded.trim() };
}

export interface WitnessPolicy {
  witnesses: readonly WitnessKey[];
  /** How many distinct witnesses of the list must have cosigned (k of n). */
  required: number;
}

export interface CosignatureCheck {
  ok: boolean;
  /** The witnesses whose cosignature verified, as `<name>+<hex key id>`. */
  cosignedBy: string[];
  detail: string;
}

/**
 * Counts the valid cosignatures by the policy's witnesses on a signed checkpoint note. A
 * cosignature line by a listed witness that does not verify fails the check (as a bad signature
 * by a trusted key rejects a note); lines by other keys are ignored.
 */
export function* checkCosignaturesOf(noteMessage: string, policy: WitnessPolicy): Steps<CosignatureCheck> {
  if (!Number.isInteger(policy.required) || policy.required < 0 || policy.required > policy.witnesses.length) {
    return { ok: false, cosignedBy: [], detail: `${policy.required} of ${policy.witnesses.length} witnesses can never be met` };
  }
  let note;
  try {
    note = parseNote(noteMessage);
  } catch (error) {
    return { ok: false, cosignedBy: [], detail: (error as Error).message };
  }
  const cosignedBy = new Set<string>();
  for (const sig of note.signatures) {
    const witness = policy.witnesses.find((w) => w.name === sig.name && w.keyId === sig.keyId);
    if (!witness) continue;
    const label = `${witness.name}+${keyIdHex(witness.keyId)}`;
    const payload = sig.signature;
    if (payload.length !== TIMESTAMP_SIZE + ED25519_SIGNATURE_SIZE) return { ok: false, cosignedBy: [...cosignedBy], detail: `the cosignature by ${label} is not a timestamp and an Ed25519 signature` };
    const timestamp = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getBigUint64(0, false);
    if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, cosignedBy: [...cosignedBy], detail: `the cosignature by ${label} has an impossible timestamp` };
    const valid = yield* ed25519Verify(witness.publicKey, cosignatureMessage(note.text, Number(timestamp)), payload.subarray(TIMESTAMP_SIZE));
    if (!valid) return { ok: false, cosignedBy: [...cosignedBy], detail: `the cosignature by ${label} does not verify` };
    cosignedBy.add(label);
  }
  const count = cosignedBy.size;
  const detail = `${count} of the ${policy.witnesses.length} configured witnesses cosigned (${policy.required} required)${count > 0 ? `: ${[...cosignedBy].join(', ')}` : ''}`;
  return { ok: count >= policy.required, cosignedBy: [...cosignedBy], detail };
}

/**
 * The witness check for a checkpoint a verifier holds (e.g. the one inside ledger evidence): met
 * by that note itself, or by another copy of the same checkpoint text that carries the
 * cosignatures (the log's checkpoint history, where witnesses' lines are added after signing).
 */
export function* checkWitnessedOf(noteMessage: string, copies: readonly string[], policy: WitnessPolicy): Steps<CosignatureCheck> {
  let text: string;
  try {
    text = parseNote(noteMessage).text;
  } catch (error) {
    return { ok: false, cosignedBy: [], detail: (error as Error).message };
  }
  let best = yield* checkCosignaturesOf(noteMessage, policy);
  for (const copy of copies) {
    if (best.ok) break;
    let copyText: string;
    try {
      copyText = parseNote(copy).text;
    } catch {
      continue;
    }
    if (copyText !== text) continue;
    const check = yield* checkCosignaturesOf(copy, policy);
    if (check.ok || check.cosignedBy.length > best.cosignedBy.length) best = check;
  }
  return best;
}
