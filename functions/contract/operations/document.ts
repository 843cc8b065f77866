import type { z } from 'zod';
import type { LiveState, Operation, ResponseMediaType } from '../operation';

export interface DocumentOptions {
  liveState?: LiveState;
  /** Media type of a file that is not JSON (a script, a stylesheet, an icon). */
  mediaType?: ResponseMediaType;
  /** Bucket key, when it is not the path without its leading slash. */
  key?: string;
}

/**
 * A built file served straight from the catalogue bucket. Its bucket key is its path without the
 * leading slash, so the build folder, the bucket and the URL space line up.
 */
export function documentOperation(tag: string, operationId: string, path: string, summary: string, schema: z.ZodType, options: DocumentOptions = {}): Operation {
  return {
    operationId,
    method: 'GET',
    path,
    tag,
    summary,
    liveState: options.liveState ?? 'LIVE',
    response: options.mediaType ? { schema, mediaType: options.mediaType } : { schema },
    errors: [503],
    caching: ['document'],
    integration: { kind: 'document', key: options.key ?? path.slice(1) },
  };
}
