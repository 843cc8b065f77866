import { AsyncLocalStorage } from 'node:async_hooks';
import { InvokeStoreBase } from '@aws/lambda-invoke-store';

type InvocationContext = Record<string | symbol, unknown>;

/**
 * The Lambda runtime's InvokeStore as its multi-concurrency mode builds it: the context of the
 * invocation in progress, kept in an AsyncLocalStorage so that invocations running at once in one
 * process each see their own.
 */
class ConcurrentInvokeStore extends InvokeStoreBase {
  private readonly storage = new AsyncLocalStorage<InvocationContext>();

  getContext(): InvocationContext | undefined {
    return this.storage.getStore();
  }

  hasContext(): boolean {
    return this.storage.getStore() !== undefined;
  }

  get<T = unknown>(key: string | symbol): T | undefined {
    return this.storage.getStore()?.[key] as T | undefined;
  }

  set<T = unknown>(key: string | symbol, value: T): void {
    if (this.isProtectedKey(key)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    const context = this.storage.getStore();
    if (!context) throw new Error('No context available');
    context[key] = value;
  }

  run<T>(context: InvocationContext, fn: () => T): T {
    return this.storage.run(context, fn);
  }
}

let installed: ConcurrentInvokeStore | undefined;

/**
 * Lambda runs one invocation at a time in an environment, and the Powertools Logger keeps the
 * invocation's context (request id, correlation id, appended keys, buffered debug lines) in module
 * state. A host that runs every invocation in one process (npm start) does what Lambda's
 * multi-concurrency runtime does: it puts an InvokeStore backed by an AsyncLocalStorage at
 * `globalThis.awslambda.InvokeStore`, sets AWS_LAMBDA_MAX_CONCURRENCY, and runs each invocation
 * inside it. The Logger (through @aws-lambda-powertools/commons' InvocationScoped) then keeps that
 * state per invocation, so every log line names its own request.
 *
 * The store is installed here rather than taken from `InvokeStore.getInstanceAsync()`, which
 * returns whichever instance was made first: the AWS SDK makes a single-context one on its first
 * request when AWS_LAMBDA_MAX_CONCURRENCY is not yet set. The variable is set only once the
 * store is in place, since the Logger refuses to log with it set and no store.
 *
 * Returns a function that runs `fn` as the invocation `requestId`.
 */
export function concurrentInvocations(maxConcurrency: number): <T>(requestId: string, fn: () => T) => T {
  if (!installed) {
    installed = new ConcurrentInvokeStore();
    const awslambda = ((globalThis as { awslambda?: { InvokeStore?: InvokeStoreBase } }).awslambda ??= {});
    awslambda.InvokeStore = installed;
  }
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= String(maxConcurrency);
  const store = installed;
  return (requestId, fn) => store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId }, fn);
}
