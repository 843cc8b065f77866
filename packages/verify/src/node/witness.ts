import { sign } from 'node:crypto';
import { cosignatureMessage, SIGNATURE_TYPE_COSIGNATURE_V1, witnessKeyIdOf } from '../checks/cosignature';
import { decodeBase64Strict } from '../checks/encoding';
import { isValidKeyName, keyIdHex, parseNote, signatureLine, splitPlus } from '../checks/note';
import { newSeed, onNodeCrypto, privateKeyFromSeed, publicKeyBytes } from './node-crypto';

/**
 * A witness's Ed25519 cosigning key (C2SP tlog-cosignature), kept as
 * `PRIVATE+KEY+<name>+<hex key id>+<base64(0x04 || 32-byte seed)>`; its public half is the witness
 * key `<name>+<hex key id>+<base64(0x04 || public key)>` that verifiers and monitors are given.
 * A witness monitors the log (./monitor.ts) and cosigns the checkpoint it verified.
 */
export interface WitnessSigner {
  name: string;
  witnessKey: string;
  /** The cosignature line for a signed checkpoint note, at `timestamp` (seconds since the epoch). */
  cosign(noteMessage: string, timestamp?: number): string;
}

export class WitnessKeyError extends Error {
  override name = 'WitnessKeyError';
}

const witnessKeyId = (name: string, publicKey: Uint8Array): number => onNodeCrypto(witnessKeyIdOf(name, publicKey));
const typed = (material: Uint8Array): string => Buffer.concat([Buffer.from([SIGNATURE_TYPE_COSIGNATURE_V1]), material]).toString('base64');

/** The witness key (public) `<name>+<hex key id>+<base64(0x04 || public key)>` of a cosigning key. */
export function encodeWitnessKey(name: string, publicKey: Uint8Array): string {
  return `${name}+${keyIdHex(witnessKeyId(name, publicKey))}+${typed(publicKey)}`;
}

/** A new cosigning key for a witness named `name` (e.g. witness.example.org/w1), in its key file form. */
export function generateWitnessKey(name: string): string {
  if (!isValidKeyName(name)) throw new WitnessKeyError('a witness name must be non-empty, without spaces or "+" (e.g. witness.example.org/w1)');
  const seed = newSeed();
  const id = keyIdHex(witnessKeyId(name, publicKeyBytes(privateKeyFromSeed(seed))));
  return `PRIVATE+KEY+${name}+${id}+${typed(seed)}`;
}

export function witnessFromKey(encoded: string): WitnessSigner {
  const parts = splitPlus(encoded.trim(), 5);
  if (!parts || parts[0] !== 'PRIVATE' || parts[1] !== 'KEY') throw new WitnessKeyError('a witness key file holds PRIVATE+KEY+<name>+<hex key id>+<base64 key>');
  const [, , name, idHex, material] = parts;
  const bytes = decodeBase64Strict(material);
  if (!isValidKeyName(name) || !bytes || bytes.length !== 33 || bytes[0] !== SIGNATURE_TYPE_COSIGNATURE_V1) {
    throw new WitnessKeyError('the witness key is not a cosignature/v1 Ed25519 seed (0x04 and 32 bytes, base64)');
  }
  const privateKey = privateKeyFromSeed(bytes.subarray(1));
  const publicKey = publicKeyBytes(privateKey);
  const keyId = witnessKeyId(name, publicKey);
  if (keyIdHex(keyId) !== idHex) throw new WitnessKeyError('the witness key id does not match its name and key');
  return {
    name,
    witnessKey: encodeWitnessKey(name, publicKey),
    cosign(noteMessage, timestamp = Math.floor(Date.now() / 1000)) {
      const { text } = parseNote(noteMessage);
      const payload = Buffer.alloc(8);
      payload.writeBigUInt64BE(BigInt(timestamp));
      const signature = sign(null, cosignatureMessage(text, timestamp), privateKey);
      return signatureLine(name, keyId, Buffer.concat([payload, signature])).replace(/\n$/, '');
    },
  };
}
