import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** The build output folder: `npm run build` writes every published document here, keyed as in the bucket. */
export const SITE_DIR = path.resolve(__dirname, '../../dist/site');

/** Cache policy for published documents (the same value the stack sets on the bucket objects). */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=300';

export function mediaTypeOf(key: string): string {
  if (key.endsWith('.json')) return 'application/json';
  if (key.endsWith('.html')) return 'text/html; charset=utf-8';
  return 'application/octet-stream';
}

/** A strong ETag over the bytes, as S3 gives for single-part uploads (MD5, quoted). */
export function etagOf(bytes: Buffer): string {
  return `"${createHash('md5').update(bytes).digest('hex')}"`;
}

export interface DocumentResponse {
  status: 200 | 304;
  headers: Record<string, string>;
  body: Buffer | null;
}

/** Serves one built document the way the S3 integration does: ETag, Cache-Control, 304 on a match. */
export async function readDocument(key: string, ifNoneMatch: string | undefined, siteDir = SITE_DIR): Promise<DocumentResponse | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path.join(siteDir, key));
  } catch {
    return null;
  }
  const etag = etagOf(bytes);
  const headers = { 'content-type': mediaTypeOf(key), etag, 'cache-control': DOCUMENT_CACHE_CONTROL, 'x-content-type-options': 'nosniff' };
  if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    return { status: 304, headers, body: null };
  }
  return { status: 200, headers, body: bytes };
}
