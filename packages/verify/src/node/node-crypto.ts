import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { runSteps, type SyncCrypto, type Steps } from '../checks/crypto-steps';

/**
 * The checks' primitives on node:crypto: synchronous, for the code that runs many checks in a row
 * (the service's functions, which keep their reads synchronous; the witness's key handling), and
 * Ed25519 key material from a 32-byte seed, as C2SP key files hold it.
 */

/** Public keys as node:crypto key objects, built once per key (building one is the costly part). */
const keyObjects = new Map<string, KeyObject>();

function ed25519Key(publicKey: Uint8Array): KeyObject {
  const x = Buffer.from(publicKey).toString('base64url');
  let key = keyObjects.get(x);
  if (!key) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    if (keyObjects.size > 64) keyObjects.clear();
    keyObjects.set(x, key);
  }
  return key;
}

export const NODE_CRYPTO: SyncCrypto = {
  sha256: (data) => createHash('sha256').update(data).digest(),
  ed25519Verify: (publicKey, message, signature) => publicKey.length === 32 && verify(null, message, ed25519Key(publicKey), signature),
};

/** Runs pure checks (checks/*.ts) on node:crypto. */
export const onNodeCrypto = <T>(steps: Steps<T>): T => runSteps(steps, NODE_CRYPTO);

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The Ed25519 private key of a 32-byte seed (RFC 8032), as C2SP signer and witness key files hold it. */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The raw 32-byte public key of an Ed25519 key. */
export function publicKeyBytes(key: KeyObject): Buffer {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url');
}

/** A new random Ed25519 seed. */
export function newSeed(): Buffer {
  const { privateKey } = generateKeyPairSync('ed25519');
  return Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
}
