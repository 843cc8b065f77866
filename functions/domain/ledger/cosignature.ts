import { decodeBase64Strict } from './encoding';
import { keyIdFor, NODE_CRYPTO } from './node-crypto';
import { isValidKeyName, keyIdHex, NoteError, parseNote, splitPlus } from './note';

/**
 * C2SP tlog-cosignature (https://c2sp.org/tlog-cosignature), the Ed25519 type: a witness's note
 * signature on a checkpoint, saying it saw the log grow consistently up to it. The key id is
 * SHA-256(name || 0x0A || 0x04 || public key)[:4]; the signature is a u64 big-endian POSIX
 * timestamp followed by an Ed25519 signature over
 *   "cosignature/v1\n" "time <timestamp>\n" <checkpoint text>
 */
export const SIGNATURE_TYPE_COSIGNATURE_V1 = 0x04;
const TIMESTAMP_SIZE = 8;
const ED25519_SIGNATURE_SIZE = 64;

/** A witness's cosigning key: name, key id, raw Ed25519 public key, its text form. */
export interface WitnessKey {
  name: string;
  keyId: number;
  publicKey: Buffer;
  encoded: string;
}

/** SHA-256(name || 0x0A || 0x04 || public key)[:4], big-endian: the signed-note key id of type 0x04. */
export const witnessKeyId = (name: string, publicKey: Uint8Array): number => keyIdFor(name, SIGNATURE_TYPE_COSIGNATURE_V1, publicKey);

/** The message a witness signs for a checkpoint text at a time (seconds since the epoch). */
export function cosignatureMessage(checkpointText: string, timestamp: number): Buffer {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new NoteError('a cosignature timestamp is a whole number of seconds');
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`, 'utf8');
}

/** Parses a witness verifier key `<name>+<hex key id>+<base64(0x04 || public key)>`; throws NoteError otherwise. */
export function parseWitnessKey(encoded: string): WitnessKey {
  const parts = typeof encoded === 'string' ? splitPlus(encoded.trim(), 3) : null;
  if (!parts) throw new NoteError('a witness key has three parts separated by "+": name, key id, key');
  const [name, idHex, material] = parts;
  if (!isValidKeyName(name)) throw new NoteError('the witness key name is empty or contains spaces');
  const bytes = decodeBase64Strict(material);
  if (!bytes || bytes.length !== 33 || bytes[0] !== SIGNATURE_TYPE_COSIGNATURE_V1) {
    throw new NoteError('a witness key is 0x04 (cosignature/v1, Ed25519) and a 32-byte public key, base64');
  }
  const publicKey = Buffer.from(bytes.subarray(1));
  const keyId = witnessKeyId(name, publicKey);
  if (keyIdHex(keyId) !== idHex) throw new NoteError(`the witness key id of ${name} does not match its name and key`);
  return { name, keyId, publicKey, encoded: encoded.trim() };
}

export function encodeWitnessKey(name: string, publicKey: Uint8Array): string {
  const material = Buffer.concat([Buffer.from([SIGNATURE_TYPE_COSIGNATURE_V1]), publicKey]).toString('base64');
  return `${name}+${keyIdHex(witnessKeyId(name, publicKey))}+${material}`;
}

export interface WitnessPolicy {
  witnesses: readonly WitnessKey[];
  /** How many distinct witnesses of the list must have cosigned (k of n). */
  required: number;
}

export type CosignatureCheck =
  | { ok: true; cosignedBy: string[]; detail: string }
  | { ok: false; cosignedBy: string[]; detail: string };

/**
 * Counts the valid cosignatures by the policy's witnesses on a signed checkpoint note. A
 * cosignature line by a listed witness that does not verify fails the check (as a bad signature
 * by a trusted key rejects a note); lines by other keys are ignored.
 */
export function checkCosignatures(noteMessage: string, policy: WitnessPolicy): CosignatureCheck {
  if (!Number.isInteger(policy.required) || policy.required < 0 || policy.required > policy.witnesses.length) {
    return { ok: false, cosignedBy: [], detail: `${policy.required} of ${policy.witnesses.length} witnesses can never be met` };
  }
  let text: string;
  let signatures;
  try {
    ({ text, signatures } = parseNote(noteMessage));
  } catch (error) {
    return { ok: false, cosignedBy: [], detail: (error as Error).message };
  }
  const cosignedBy = new Set<string>();
  for (const sig of signatures) {
    const witness = policy.witnesses.find((w) => w.name === sig.name && w.keyId === sig.keyId);
    if (!witness) continue;
    const label = `${witness.name}+${keyIdHex(witness.keyId)}`;
    const payload = Buffer.from(sig.signature);
    if (payload.length !== TIMESTAMP_SIZE + ED25519_SIGNATURE_SIZE) return { ok: false, cosignedBy: [...cosignedBy], detail: `the cosignature by ${label} is not a timestamp and an Ed25519 signature` };
    const timestamp = payload.readBigUInt64BE(0);
    if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, cosignedBy: [...cosignedBy], detail: `the cosignature by ${label} has an impossible timestamp` };
    const valid = NODE_CRYPTO.ed25519Verify(witness.publicKey, cosignatureMessage(text, Number(timestamp)), payload.subarray(TIMESTAMP_SIZE));
    if (!valid) return { ok: false, cosignedBy: [...cosignedBy], detail: `the cosignature by ${label} does not verify` };
    cosignedBy.add(label);
  }
  const count = cosignedBy.size;
  const detail = `${count} of the ${policy.witnesses.length} configured witnesses cosigned (${policy.required} required)${count > 0 ? `: ${[...cosignedBy].join(', ')}` : ''}`;
  return count >= policy.required ? { ok: true, cosignedBy: [...cosignedBy], detail } : { ok: false, cosignedBy: [...cosignedBy], detail };
}

/** The note with extra signature lines appended (lines already present are not repeated). */
export function addSignatureLines(noteMessage: string, lines: readonly string[]): string {
  const present = new Set(noteMessage.slice(noteMessage.lastIndexOf('\n\n') + 2).split('\n').filter(Boolean));
  const added = lines.map((l) => l.replace(/\n$/, '')).filter((l) => l && !present.has(l));
  const out = noteMessage + added.map((l) => `${l}\n`).join('');
  parseNote(out);
  return out;
}

/**
 * The witness check for a checkpoint a verifier holds (e.g. the one inside ledger evidence): met
 * by that note itself, or by another copy of the same checkpoint text that carries the
 * cosignatures (the log's checkpoint history, where witnesses' lines are added after signing).
 */
export function checkWitnessed(noteMessage: string, copies: readonly string[], policy: WitnessPolicy): CosignatureCheck {
  let text: string;
  try {
    text = parseNote(noteMessage).text;
  } catch (error) {
    return { ok: false, cosignedBy: [], detail: (error as Error).message };
  }
  let best = checkCosignatures(noteMessage, policy);
  for (const copy of copies) {
    if (best.ok) break;
    let copyText: string;
    try {
      copyText = parseNote(copy).text;
    } catch {
      continue;
    }
    if (copyText !== text) continue;
    const check = checkCosignatures(copy, policy);
    if (check.ok || check.cosignedBy.length > best.cosignedBy.length) best = check;
  }
  return best;
}
