import canonicalize from 'canonicalize';
import type { Steps } from './crypto-steps';
import { utf8 } from './encoding';
import { leafHashOf } from './merkle';
import { isWellFormedText } from './note';

export class CanonicalizationError extends Error {
  override name = 'CanonicalizationError';
}

function stringsWellFormed(value: unknown): boolean {
  if (typeof value === 'string') return isWellFormedText(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(stringsWellFormed);
  return Object.entries(value).every(([key, v]) => isWellFormedText(key) && stringsWellFormed(v));
}

/**
 * The leaf data of a record version: its RFC 8785 (JCS) canonical JSON in UTF-8. RFC 8785 works
 * on I-JSON, so values JCS cannot represent (undefined, NaN, Infinity, lone surrogates) are refused
 * rather than silently changed.
 */
export function canonicalBytes(record: unknown): Uint8Array {
  if (record === undefined) throw new CanonicalizationError('there is no record to canonicalize');
  if (!stringsWellFormed(record)) throw new CanonicalizationError('the record contains a lone surrogate, which RFC 8785 forbids');
  let text: string | undefined;
  try {
    text = canonicalize(record);
  } catch (error) {
    throw new CanonicalizationError(`the record is not I-JSON: ${(error as Error).message}`);
  }
  if (text === undefined) throw new CanonicalizationError('the record has no JSON form');
  return utf8(text);
}

/** SHA-256(0x00 || JCS(record)): the Merkle leaf hash of one record version. */
export const recordLeafHashOf = (record: unknown): Steps<Uint8Array> => leafHashOf(canonicalBytes(record));
