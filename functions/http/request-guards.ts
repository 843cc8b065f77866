import type { HttpMiddleware } from './middleware';
import { refuseUnknownQueryParameters } from './params';
import { Problem } from './problem';
import { isJsonMediaType } from './request';

/** Bodies above this size are refused with 413 before any parsing (documented in docs/errors.md). */
export const MAX_BODY_BYTES = 64 * 1024;

export interface RequestGuardOptions {
  /**
   * The operation takes a JSON request body: a non-empty body must be labelled application/json
   * (or a +json type), else 415. A form-encoded body (what `curl -d` sends unlabelled) is refused
   * instead of being read as something the caller did not declare.
   */
  jsonBody?: true;
  /** A larger limit than MAX_BODY_BYTES for an operation that takes larger bodies (the receivers' batches); the operation checks its own limits below it. */
  maxBodyBytes?: number;
}

/**
 * Refusals that depend on the request's shape, not on the operation: a query parameter given
 * twice (the API Gateway event keeps only the last value, so accepting it would silently ignore
 * one), one the operation does not read (functions/http/params.ts), a body over the limit, a body
 * of a media type a JSON operation does not read.
 */
export function requestGuards(options: RequestGuardOptions = {}): HttpMiddleware {
  return {
    name: 'requestGuards',
    before: ({ event, context }) => {
      for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
        if (values && values.length > 1) {
          throw new Problem('INVALID_PARAMETER', `Parameter '${name.slice(0, 64)}' is given ${values.length} times; give it once.`, { parameter: name.slice(0, 64) });
        }
      }
      refuseUnknownQueryParameters(event.resource, event.queryStringParameters);
      const request = context.httpRequest!;
      if (request.body === null) return;
      const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
      if (Buffer.byteLength(request.body, 'utf8') > limit) {
        throw new Problem('PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes.`, { maxBodyBytes: limit });
      }
      if (options.jsonBody && request.body.length > 0 && !isJsonMediaType(request.headers['content-type'])) {
        throw new Problem('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON, sent with Content-Type: application/json.', {
          acceptedMediaTypes: ['application/json'],
        });
      }
    },
  };
}
