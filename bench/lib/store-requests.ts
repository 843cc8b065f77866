import diagnostics from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

/**
 * Counts the HTTP requests this process sends to the store (every SDK attempt, retries included),
 * as seen by Node's http client: the number DynamoDB would bill and answer.
 */
export function countStoreRequests(storeEndpoint: string): { readonly count: number; reset(): void; stop(): void } {
  const { host } = new URL(storeEndpoint);
  let count = 0;
  const onStart = (message: unknown) => {
    const request = (message as { request: ClientRequest }).request;
    if (request.getHeader('host') === host) count++;
  };
  diagnostics.subscribe('http.client.request.start', onStart);
  return {
    get count() {
      return count;
    },
    reset: () => {
      count = 0;
    },
    stop: () => diagnostics.unsubscribe('http.client.request.start', onStart),
  };
}
