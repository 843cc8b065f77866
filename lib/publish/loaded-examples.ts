import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { RecordToStore } from '../../functions/store/ports/records';
import type { RecordSource } from '../loader/source';
import { DOCUMENT_CACHE_CONTROL, mediaTypeOf } from '../local/documents';
import { ingressRecordsOf } from './ingress-examples';
import { buildSite, keyOf, LOADED_DOCUMENTS } from './site';
import { canonicalSources } from './sources';

/**
 * What a completed load publishes into the catalogue bucket (`npm run load` with `--tiles-bucket`,
 * and the assembly's demo, which loads as an operator would): the documents that depend on the
 * records loaded (LOADED_DOCUMENTS: /developers/sandbox/examples.json, whose ingress examples are
 * derived from them), built as the build builds them, with the media type and cache policy the
 * stack's deployments give every document. The loader role may put exactly these keys; the release
 * evidence digests their template form, so it stays true whatever a load publishes
 * (docs/deploy.md#published-examples).
 */

/** The documents derived from `records`, keyed by bucket key. */
export function loadedDocuments(records: readonly RecordToStore[]): Map<string, string> {
  const site = buildSite({ ...canonicalSources(), ingressRecords: records });
  return new Map(LOADED_DOCUMENTS.map(keyOf).map((key) => [key, site.get(key)!]));
}

/**
 * The records of a load's source the examples may be derived from: those the load stored as the
 * source describes them. A record an event changed since an earlier load was kept as the event made
 * it (`keptChangedByEvents`), so the source no longer says what state it is in: it is left out.
 */
export async function loadedRecordsOf(source: RecordSource, keptChangedByEvents: readonly string[]): Promise<RecordToStore[]> {
  const changed = new Set(keptChangedByEvents);
  return (await ingressRecordsOf(source)).filter((record) => !changed.has(record.reference));
}

/** Puts the documents derived from the records of a completed load into the catalogue bucket; returns the keys written. */
export async function publishLoadedDocuments(s3: S3Client, bucket: string, records: readonly RecordToStore[]): Promise<string[]> {
  const documents = loadedDocuments(records);
  for (const [key, bytes] of documents) {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: mediaTypeOf(key), CacheControl: DOCUMENT_CACHE_CONTROL }));
  }
  return [...documents.keys()];
}
