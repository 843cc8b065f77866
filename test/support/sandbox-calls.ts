import { MAX_BODY_BYTES } from '../../functions/http/request-guards';
import { sandboxOperations } from '../../functions/contract/operations/sandbox';
import { SANDBOX_EXAMPLES } from '../../functions/domain/sandbox/examples';

/**
 * Every kind of request the sandbox routes answer: each published example (200), refused
 * inputs (422), an unregistered provider (404), other methods (405) and an oversized body
 * (413). Shared by the HTTP tests and the store-untouched proof.
 */
export interface SandboxCall {
  what: string;
  method: string;
  path: string;
  body?: string;
  expectStatus: number;
}

const concretePath = (template: string) => template.replace('{providerId}', 'commerce-source');

export function sandboxCalls(): SandboxCall[] {
  const calls: SandboxCall[] = SANDBOX_EXAMPLES.map((e) => ({ what: `example ${e.name}`, method: 'POST', path: e.path, body: JSON.stringify(e.body), expectStatus: 200 }));
  calls.push(
    { what: 'test clock without a body', method: 'POST', path: '/developers/sandbox/test-clock', expectStatus: 200 },
    { what: 'test clock with malformed JSON', method: 'POST', path: '/developers/sandbox/test-clock', body: '{"advanceMs":', expectStatus: 422 },
    { what: 'test clock with a negative advance', method: 'POST', path: '/developers/sandbox/test-clock', body: '{"advanceMs":-5}', expectStatus: 422 },
    { what: 'unregistered provider', method: 'POST', path: '/developers/sandbox/providers/bank-transfer/run', body: '{}', expectStatus: 404 },
    { what: 'provider request rejected', method: 'POST', path: '/developers/sandbox/providers/payment-processor/run', body: '{"operation":"CAPTURE"}', expectStatus: 422 },
    { what: 'trust policy without a subject', method: 'POST', path: '/developers/sandbox/trust-policy', body: '{"policy":"baseline"}', expectStatus: 422 },
  );
  for (const op of sandboxOperations) {
    const path = concretePath(op.path);
    calls.push({ what: `${op.operationId} oversized body`, method: 'POST', path, body: JSON.stringify({ pad: 'x'.repeat(MAX_BODY_BYTES) }), expectStatus: 413 });
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) calls.push({ what: `${op.operationId} ${method}`, method, path, expectStatus: 405 });
  }
  return calls;
}
