// Types only (erased from the browser bundle): the project is typed against Node, whose WebCrypto is the browser's API.
import type { webcrypto } from 'node:crypto';
import type { AsyncCrypto } from './crypto-steps';

/**
 * The ledger checks' primitives on WebCrypto (`crypto.subtle`): what the trust receipt's script
 * uses in the visitor's browser. Node has the same API, so tests run it beside node:crypto.
 * A browser without Ed25519 in WebCrypto rejects the key import; the caller reports that.
 */
export function webCrypto(subtle: webcrypto.SubtleCrypto = globalThis.crypto.subtle): AsyncCrypto {
  return {
    async sha256(data) {
      return new Uint8Array(await subtle.digest('SHA-256', data as webcrypto.BufferSource));
    },
    async ed25519Verify(publicKey, message, signature) {
      if (publicKey.length !== 32) return false;
      const key = await subtle.importKey('raw', publicKey as webcrypto.BufferSource, { name: 'Ed25519' }, false, ['verify']);
      return subtle.verify({ name: 'Ed25519' }, key, signature as webcrypto.BufferSource, message as webcrypto.BufferSource);
    },
  };
}
