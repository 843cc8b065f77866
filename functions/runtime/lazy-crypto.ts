/**
 * node:crypto, loaded the first time a digest or a signature check is needed instead of when a
 * function starts (why, and how: the module below). The loader lives in the verifier package
 * because the package's log hashing, which the service's writer and readers use, needs it too and
 * cannot import the service; the service's functions share the same one.
 */
export { nodeCrypto } from '../../packages/verify/src/node/lazy-crypto';
