import type { APIGatewayProxyResult } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { NEVER_STORED } from '../contract/caching';
import { CORS_RESPONSE_HEADERS } from './cors';
import type { HttpResponse } from './request';

const COMMON_HEADERS = { 'x-content-type-options': 'nosniff', ...CORS_RESPONSE_HEADERS };

/** A strong entity tag over the exact bytes of an answer (SHA-256, base64url, quoted). */
export function strongEtag(bytes: string): string {
  return `"${createHash('sha256').update(bytes).digest('base64url')}"`;
}

/** An operation's answer as API Gateway's proxy result: the body serialised, the service's headers on it. */
export function toProxyResult(response: HttpResponse, correlationId: string): APIGatewayProxyResult {
  const mediaType = response.mediaType ?? 'application/json';
  const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
  return {
    statusCode: response.status,
    headers: {
      'content-type': mediaType.includes('charset') ? mediaType : `${mediaType}; charset=utf-8`,
      // Every answer of an operation says how long it may be kept (cache-policy.ts); this is the fallback.
      'cache-control': NEVER_STORED,
      ...COMMON_HEADERS,
      ...response.headers,
      'x-correlation-id': correlationId,
    },
    body,
  };
}
