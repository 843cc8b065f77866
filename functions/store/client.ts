import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { withoutSdkLogLines } from '../aws/sdk-log-lines';

/**
 * Timeouts are deliberate: a read is one small Query, so a store that has not connected in
 * 250 ms or answered in 1 s is treated as unavailable and the caller gets a 503 quickly.
 * Two attempts in all (one retry) absorb a dropped connection without stacking delays:
 * worst case about 2.5 s, far below API Gateway's 29 s.
 * STORE_CONNECT_TIMEOUT_MS / STORE_REQUEST_TIMEOUT_MS / STORE_MAX_ATTEMPTS override them.
 *
 * The SDK's agent opens at most 50 sockets and queues the rest, and the connection timeout runs
 * while a request waits in that queue. A Lambda environment runs one invocation at a time, so it
 * never waits there; a host that runs many invocations in one process with one client (npm start)
 * does, and its reads would time out as "did not connect". STORE_MAX_SOCKETS lifts the cap there.
 */
export const STORE_TIMEOUTS = {
  connectionTimeout: Number(process.env.STORE_CONNECT_TIMEOUT_MS ?? 250),
  requestTimeout: Number(process.env.STORE_REQUEST_TIMEOUT_MS ?? 1000),
  maxAttempts: Number(process.env.STORE_MAX_ATTEMPTS ?? 2),
  maxSockets: Number(process.env.STORE_MAX_SOCKETS ?? 50),
};

let shared: DynamoDBClient | undefined;

/**
 * One client per execution environment, created on first use (not at cold start). Region,
 * credentials and endpoint are the SDK's own settings: outside AWS, AWS_ENDPOINT_URL_DYNAMODB
 * points it at a local store (the one way the service is pointed anywhere else).
 */
export function storeClient(): DynamoDBClient {
  shared ??= withoutSdkLogLines(new DynamoDBClient({
    maxAttempts: STORE_TIMEOUTS.maxAttempts,
    requestHandler: {
      connectionTimeout: STORE_TIMEOUTS.connectionTimeout,
      requestTimeout: STORE_TIMEOUTS.requestTimeout,
      // Without this the SDK only logs a warning when requestTimeout passes and keeps waiting on a
      // store that accepted the connection but never answers (a frozen process, a black hole).
      throwOnRequestTimeout: true,
      httpAgent: { maxSockets: STORE_TIMEOUTS.maxSockets },
      httpsAgent: { maxSockets: STORE_TIMEOUTS.maxSockets },
    },
  }));
  return shared;
}

/** The table name, or undefined when persistence is not configured. */
export function tableName(): string | undefined {
  return process.env.TABLE_NAME || undefined;
}
