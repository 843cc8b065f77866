import { createHash } from 'node:crypto';

/**
 * How a published developer document is serialised and tagged, wherever it is served from
 * (the catalogue bucket, a function, the local server): the same bytes get the same ETag
 * everywhere, and the caching class `document` (functions/contract/caching.ts).
 */

export const DOCUMENT_MEDIA_TYPE = 'application/json';

/** Two-space indented JSON with a final newline: readable with curl, stable for digests. */
export function serializeDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** A strong ETag over the bytes, as S3 computes it for a single-part upload (quoted hex MD5). */
export function documentEtag(bytes: string | Buffer): string {
  return `"${createHash('md5').update(bytes).digest('hex')}"`;
}

/** RFC 9110 If-None-Match: a list of entity tags (weak ones compare weakly) or "*". */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => candidate.trim() === '*' || strip(candidate) === strip(etag));
}
