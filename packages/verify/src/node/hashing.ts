import { createHash } from 'node:crypto';
import { LEAF_PREFIX, NODE_PREFIX } from '../checks/merkle';

/**
 * RFC 9162 hashes on node:crypto, called directly, for code that hashes a whole tree (the monitor,
 * the service's log writer): a synchronous call per hash instead of a WebCrypto promise. The rules
 * and the verifier's side are in checks/merkle.ts.
 */

/** The root of the empty tree: SHA-256 of the empty string (a constant, so loading this module hashes nothing). */
export const EMPTY_ROOT = Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex');

export function leafHash(data: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}
