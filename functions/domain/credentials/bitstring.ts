import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * W3C Bitstring Status List v1.0 encoding. The list is at least 16 KB (131,072 one-bit entries)
 * so that fetching it reveals nothing about which credential a verifier cares about (herd
 * privacy). Index 0 is the left-most bit: the most significant bit of the first byte.
 * encodedList = "u" (multibase base64url) + base64url without padding of the GZIP bytes.
 */
export const MIN_STATUS_LIST_ENTRIES = 131_072;
const MULTIBASE_BASE64URL = 'u';

export class StatusListEncodingError extends Error {}

export function bitAt(bits: Uint8Array, index: number): 0 | 1 {
  if (!Number.isInteger(index) || index < 0 || index >= bits.length * 8) {
    throw new StatusListEncodingError(`index ${index} is outside a list of ${bits.length * 8} entries`);
  }
  return ((bits[index >> 3] >> (7 - (index & 7))) & 1) as 0 | 1;
}

/** The uncompressed bitstring with the given indexes set. */
export function bitstringOf(setIndexes: Iterable<number>, entries = MIN_STATUS_LIST_ENTRIES): Uint8Array {
  if (!Number.isInteger(entries) || entries < MIN_STATUS_LIST_ENTRIES || entries % 8 !== 0) {
    throw new StatusListEncodingError(`a status list holds a multiple of 8 entries, at least ${MIN_STATUS_LIST_ENTRIES}`);
  }
  const bits = new Uint8Array(entries / 8);
  for (const index of setIndexes) {
    if (!Number.isInteger(index) || index < 0 || index >= entries) {
      throw new StatusListEncodingError(`index ${index} is outside a list of ${entries} entries`);
    }
    bits[index >> 3] |= 0x80 >> (index & 7);
  }
  return bits;
}

export function encodeStatusList(setIndexes: Iterable<number>, entries = MIN_STATUS_LIST_ENTRIES): string {
  return MULTIBASE_BASE64URL + gzipSync(bitstringOf(setIndexes, entries)).toString('base64url');
}

/** The Bitstring Expansion Algorithm, refusing anything the Validate Algorithm would refuse. */
export function decodeStatusList(encodedList: string): Uint8Array {
  if (!encodedList.startsWith(MULTIBASE_BASE64URL)) throw new StatusListEncodingError('encodedList must start with the multibase prefix "u" (base64url)');
  const body = encodedList.slice(1);
  if (!/^[A-Za-z0-9_-]*$/.test(body)) throw new StatusListEncodingError('encodedList must be base64url without padding');
  let bits: Buffer;
  try {
    bits = gunzipSync(Buffer.from(body, 'base64url'));
  } catch {
    throw new StatusListEncodingError('encodedList is not GZIP-compressed');
  }
  if (bits.length * 8 < MIN_STATUS_LIST_ENTRIES) {
    throw new StatusListEncodingError(`the list holds ${bits.length * 8} entries, fewer than the ${MIN_STATUS_LIST_ENTRIES} herd privacy requires`);
  }
  return new Uint8Array(bits);
}

/** Every set index, ascending. */
export function setIndexesOf(bits: Uint8Array): number[] {
  const out: number[] = [];
  for (let byte = 0; byte < bits.length; byte++) {
    if (bits[byte] === 0) continue;
    for (let bit = 0; bit < 8; bit++) if ((bits[byte] >> (7 - bit)) & 1) out.push(byte * 8 + bit);
  }
  return out;
}
