import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TableFailure, TableInspection } from '../domain/surfaces/readiness';
import { storeClient, tableName } from './client';
import { GENESIS_SK, TABLE_META_PK } from './layout';

/** Reads the table's schema version from its metadata item; null when the table holds none. */
export async function readTableSchemaVersion(client: DynamoDBClient, table: string): Promise<string | null> {
  const out = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: TABLE_META_PK }, sk: { S: GENESIS_SK } } }));
  return out.Item?.schemaVersion?.S ?? null;
}

const ACCESS_ERRORS = new Set(['AccessDeniedException', 'UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException', 'MissingAuthenticationTokenException']);
const NETWORK_ERRORS = new Set(['TimeoutError', 'RequestTimeout', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

function failureOf(error: unknown): { failure: TableFailure; errorName: string } {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const errorName = e?.code ?? e?.name ?? 'Error';
  if (e?.name === 'ResourceNotFoundException') return { failure: 'TABLE_NOT_FOUND', errorName };
  if (ACCESS_ERRORS.has(e?.name ?? '') || e?.$metadata?.httpStatusCode === 403) return { failure: 'ACCESS_DENIED', errorName };
  // Without an HTTP status the request never got an answer: refused, reset, timed out.
  if (NETWORK_ERRORS.has(errorName) || NETWORK_ERRORS.has(e?.name ?? '') || e?.$metadata?.httpStatusCode === undefined) {
    return { failure: 'UNREACHABLE', errorName };
  }
  return { failure: 'UNEXPECTED_ERROR', errorName };
}

/**
 * One GetItem of the table's metadata item, bounded by the store client's short timeouts
 * (client.ts). It never throws: an unreachable store is a finding, not a failure of the caller.
 */
export async function inspectTable(now: () => number = () => performance.now()): Promise<TableInspection> {
  const table = tableName();
  if (!table) return { configured: false };
  const started = now();
  try {
    const schemaVersion = await readTableSchemaVersion(storeClient(), table);
    return { configured: true, reachable: true, schemaVersion, durationMs: Math.round(now() - started) };
  } catch (error) {
    return { configured: true, reachable: false, ...failureOf(error), durationMs: Math.round(now() - started) };
  }
}
