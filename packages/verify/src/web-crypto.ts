import type { AsyncCrypto } from './checks/crypto-steps';

/**
 * The part of WebCrypto's SubtleCrypto the checks use, typed here so that neither the DOM library
 * nor Node's types are needed to use this package: browsers' and Node's `crypto.subtle` fit it.
 */
export interface SubtleCryptoLike {
  digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer>;
  importKey(format: 'raw', keyData: Uint8Array, algorithm: { name: 'Ed25519' }, extractable: false, usages: ['verify']): Promise<unknown>;
  verify(algorithm: { name: 'Ed25519' }, key: never, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
}

/** The platform's WebCrypto, or an error saying it has none (an insecure browser context, an old runtime). */
export function platformSubtle(): SubtleCryptoLike {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCryptoLike } }).crypto?.subtle;
  if (!subtle) throw new Error('this platform has no WebCrypto (crypto.subtle); browsers offer it only in secure contexts (https or localhost)');
  return subtle;
}

/**
 * The checks' primitives on WebCrypto (`crypto.subtle`): browsers and Node.js alike. A platform
 * without Ed25519 in WebCrypto rejects the key import; the caller reports that.
 */
export function webCrypto(subtle: SubtleCryptoLike = platformSubtle()): AsyncCrypto {
  return {
    async sha256(data) {
      return new Uint8Array(await subtle.digest('SHA-256', data));
    },
    async ed25519Verify(publicKey, message, signature) {
      if (publicKey.length !== 32) return false;
      const key = await subtle.importKey('raw', publicKey, { name: 'Ed25519' }, false, ['verify']);
      return subtle.verify({ name: 'Ed25519' }, key as never, signature, message);
    },
  };
}
