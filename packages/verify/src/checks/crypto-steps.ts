/**
 * The ledger checks are written once, as generators that ask for each cryptographic primitive
 * they need (yield a request, receive the answer). The platform answers: node:crypto in the
 * service's functions, synchronously (node/node-crypto.ts), so that their reads stay synchronous;
 * WebCrypto, which only answers with promises, in this package's API, its CLI, browsers and the
 * trust receipt (web-crypto.ts). So one pure module serves all of them, and no check is written twice.
 */
export type CryptoRequest =
  | { op: 'sha256'; data: Uint8Array }
  | { op: 'ed25519-verify'; publicKey: Uint8Array; message: Uint8Array; signature: Uint8Array };

export type Steps<T> = Generator<CryptoRequest, T, unknown>;

export function* sha256(data: Uint8Array): Steps<Uint8Array> {
  return (yield { op: 'sha256', data }) as Uint8Array;
}

export function* ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Steps<boolean> {
  return (yield { op: 'ed25519-verify', publicKey, message, signature }) as boolean;
}

export interface SyncCrypto {
  sha256(data: Uint8Array): Uint8Array;
  ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}

export interface AsyncCrypto {
  sha256(data: Uint8Array): Promise<Uint8Array>;
  ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

function ask(request: CryptoRequest, crypto: SyncCrypto | AsyncCrypto): unknown {
  return request.op === 'sha256' ? crypto.sha256(request.data) : crypto.ed25519Verify(request.publicKey, request.message, request.signature);
}

/** Runs checks with primitives that answer at once (node:crypto). */
export function runSteps<T>(steps: Steps<T>, crypto: SyncCrypto): T {
  let next = steps.next();
  while (!next.done) next = steps.next(ask(next.value, crypto));
  return next.value;
}

/** Runs the same checks with primitives that answer with promises (WebCrypto). */
export async function runStepsAsync<T>(steps: Steps<T>, crypto: AsyncCrypto): Promise<T> {
  let next = steps.next();
  while (!next.done) next = steps.next(await ask(next.value, crypto));
  return next.value;
}
