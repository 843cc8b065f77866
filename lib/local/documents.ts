import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CACHE_CONTROL } from '../../functions/contract/caching';
import { documentEtag, matchesIfNoneMatch } from '../../functions/domain/documents';
import { logResourceHeaders, type ResourceHeaders } from '../../functions/domain/ledger/tiles';

/** The build output folder: `npm run build` writes every published document here, keyed as in the bucket. */
export const SITE_DIR = path.resolve(__dirname, '../../dist/site');

/** Cache policy for published documents, the `document` class (the same value the stack sets on the bucket objects). */
export const DOCUMENT_CACHE_CONTROL = CACHE_CONTROL.document;

/** Every file below `dir`, as bucket keys with forward slashes (a build output, a bucket deployment's source). */
export function filesBelow(dir: string, prefix = ''): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      const key = prefix ? `${prefix}/${name}` : name;
      return statSync(full).isDirectory() ? filesBelow(full, key) : [key];
    });
}

export function mediaTypeOf(key: string): string {
  if (key.endsWith('.json')) return 'application/json';
  if (key.endsWith('.html')) return 'text/html; charset=utf-8';
  if (key.endsWith('.js')) return 'text/javascript; charset=utf-8';
  if (key.endsWith('.css')) return 'text/css; charset=utf-8';
  if (key.endsWith('.txt')) return 'text/plain; charset=utf-8';
  if (key.endsWith('.svg')) return 'image/svg+xml';
  return 'application/octet-stream';
}

/** A strong ETag over the bytes, as S3 gives for single-part uploads (MD5, quoted). */
export const etagOf = (bytes: Buffer): string => documentEtag(bytes);

export interface DocumentResponse {
  status: 200 | 304;
  headers: Record<string, string>;
  body: Buffer | null;
}

/**
 * Serves one built document the way the bucket integration does: the headers API Gateway passes
 * through (Content-Type, ETag, Cache-Control) plus the one it adds (X-Content-Type-Options), and
 * 304 with no body when If-None-Match matches.
 */
export async function readDocument(key: string, ifNoneMatch: string | undefined, siteDir = SITE_DIR): Promise<DocumentResponse | null> {
  return readStoredFile(path.join(siteDir, key), { contentType: mediaTypeOf(key), cacheControl: DOCUMENT_CACHE_CONTROL }, ifNoneMatch);
}

/**
 * Serves one resource of the ledger's tile log from the tile folder as the bucket serves it: the
 * Content-Type and Cache-Control the writer stored as object metadata (logResourceHeaders), the
 * ETag, 304. `logPath` is relative to the log prefix (checkpoint, tile/0/000, ...).
 */
export async function readLogResource(logPath: string, ifNoneMatch: string | undefined, tilesDir: string): Promise<DocumentResponse | null> {
  let headers: ResourceHeaders;
  try {
    headers = logResourceHeaders(logPath);
  } catch {
    return null;
  }
  return readStoredFile(path.join(tilesDir, ...logPath.split('/')), headers, ifNoneMatch);
}

async function readStoredFile(file: string, stored: ResourceHeaders, ifNoneMatch: string | undefined): Promise<DocumentResponse | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return null;
  }
  const etag = etagOf(bytes);
  const headers = { 'content-type': stored.contentType, etag, 'cache-control': stored.cacheControl, 'x-content-type-options': 'nosniff' };
  if (matchesIfNoneMatch(ifNoneMatch, etag)) return { status: 304, headers, body: null };
  return { status: 200, headers, body: bytes };
}
