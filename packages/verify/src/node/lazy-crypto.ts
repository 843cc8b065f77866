/**
 * node:crypto, loaded the first time a digest or a signature check is needed instead of when a
 * function starts. Loading it compiles some 35 of Node's internal modules (hashes, ciphers, keys,
 * key generation and the whole stream layer they sit on): a tenth to a fifth of a bare Node.js
 * start, which was most of what a function that reads nothing cost (README, cold start). An
 * answer that needs no digest (a page, readiness, a refused request) never loads it; one that
 * needs a digest loads it then. process.getBuiltinModule (Node.js 20.16 and 22.3 onwards, hence
 * the engines fields of the service and of this package) returns Node's own module; unlike a `require` inside a function, no bundler
 * rewrites it. It is kept, so that building a Merkle tree, which hashes every node, pays one
 * field read a hash.
 */
let loaded: typeof import('node:crypto') | undefined;

export function nodeCrypto(): typeof import('node:crypto') {
  return (loaded ??= process.getBuiltinModule('node:crypto'));
}
