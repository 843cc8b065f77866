import { generateKeyPairSync, sign } from 'node:crypto';
import { cosignatureMessage, SIGNATURE_TYPE_COSIGNATURE_V1 } from '../../packages/verify/src/checks/cosignature';
import { witnessKeyId } from '../../functions/domain/ledger/node-crypto';
import { decodeBase64Strict } from '../../packages/verify/src/checks/encoding';
import { isValidKeyName, keyIdHex, parseNote, signatureLine, splitPlus } from '../../packages/verify/src/checks/note';
import { privateKeyFromSeed, publicKeyBytes, SigningKeyError } from '../../functions/ledger-writer/signer';

/**
 * A witness's Ed25519 cosigning key (C2SP tlog-cosignature), kept as
 * `PRIVATE+KEY+<name>+<hex key id>+<base64(0x04 || 32-byte seed)>`; its public half is the witness
 * key `<name>+<hex key id>+<base64(0x04 || public key)>` that verifiers and monitors are given.
 */
export interface WitnessSigner {
  name: string;
  witnessKey: string;
  /** The cosignature line for a signed checkpoint note, at `timestamp` (seconds since the epoch). */
  cosign(noteMessage: string, timestamp?: number): string;
}

/** The witness key (public) `<name>+<hex key id>+<base64(0x04 || public key)>` of a cosigning key. */
export function encodeWitnessKey(name: string, publicKey: Uint8Array): string {
  const material = Buffer.concat([Buffer.from([SIGNATURE_TYPE_COSIGNATURE_V1]), publicKey]).toString('base64');
  return `${name}+${keyIdHex(witnessKeyId(name, publicKey))}+${material}`;
}

export function generateWitnessKey(name: string): string {
  if (!isValidKeyName(name)) throw new SigningKeyError('a witness name must be non-empty, without spaces or "+" (e.g. witness.example.org/w1)');
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const id = keyIdHex(witnessKeyId(name, publicKeyBytes(privateKey)));
  return `PRIVATE+KEY+${name}+${id}+${Buffer.concat([Buffer.from([SIGNATURE_TYPE_COSIGNATURE_V1]), seed]).toString('base64')}`;
}

export function witnessFromKey(encoded: string): WitnessSigner {
  const parts = splitPlus(encoded.trim(), 5);
  if (!parts || parts[0] !== 'PRIVATE' || parts[1] !== 'KEY') throw new SigningKeyError('a witness key file holds PRIVATE+KEY+<name>+<hex key id>+<base64 key>');
  const [, , name, idHex, material] = parts;
  const bytes = decodeBase64Strict(material);
  if (!isValidKeyName(name) || !bytes || bytes.length !== 33 || bytes[0] !== SIGNATURE_TYPE_COSIGNATURE_V1) {
    throw new SigningKeyError('the witness key is not a cosignature/v1 Ed25519 seed (0x04 and 32 bytes, base64)');
  }
  const privateKey = privateKeyFromSeed(bytes.subarray(1));
  const publicKey = publicKeyBytes(privateKey);
  const keyId = witnessKeyId(name, publicKey);
  if (keyIdHex(keyId) !== idHex) throw new SigningKeyError('the witness key id does not match its name and key');
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
