import { readFileSync } from 'node:fs';
import { filesBelow } from '../local/documents';
import path from 'node:path';
import { PutObjectCommand, type PutObjectCommandInput, type S3Client } from '@aws-sdk/client-s3';

/**
 * What a CDK BucketDeployment (Custom::CDKBucketDeployment) puts in its bucket when the stack is
 * deployed, done locally: each source asset's files (markers replaced by their deploy-time values,
 * JSON-escaped where the source asks), filtered by Exclude and Include in order as `aws s3 sync`
 * does (a later filter wins), under the destination prefix, with the deployment's system metadata
 * (Content-Type, Cache-Control, ...) and user metadata. Written straight into the local S3, as the
 * deployment's own provider function would (it is not run: a Python function with the AWS CLI).
 */

export interface BucketDeploymentProps {
  SourceObjectKeys: string[];
  SourceMarkers?: Array<Record<string, string>>;
  SourceMarkersConfig?: Array<{ jsonEscape?: boolean }>;
  DestinationBucketName: string;
  DestinationBucketKeyPrefix?: string;
  Exclude?: string[];
  Include?: string[];
  Extract?: boolean | string;
  SystemMetadata?: Record<string, string>;
  UserMetadata?: Record<string, string>;
}

/** Python's fnmatch, as the AWS CLI's --include/--exclude use it: `*` matches across `/`. */
export function fnmatch(pattern: string, name: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) source += '\\[';
      else {
        const body = pattern.slice(i + 1, end);
        source += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else source += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's').test(name);
}

/** Whether `aws s3 sync --exclude ... --include ...` copies `key` (filters in the order the provider passes them). */
export function copiedBySync(key: string, exclude: readonly string[] = [], include: readonly string[] = []): boolean {
  let copied = true;
  for (const pattern of exclude) if (fnmatch(pattern, key)) copied = false;
  for (const pattern of include) if (fnmatch(pattern, key)) copied = true;
  return copied;
}

const SYSTEM_METADATA: Record<string, keyof PutObjectCommandInput> = {
  'content-type': 'ContentType',
  'cache-control': 'CacheControl',
  'content-disposition': 'ContentDisposition',
  'content-encoding': 'ContentEncoding',
  'content-language': 'ContentLanguage',
  'website-redirect': 'WebsiteRedirectLocation',
};

/**
 * Deploys one BucketDeployment. `sourceDirectory` gives an asset's files by its S3 key;
 * `rewrite` adjusts the text of files whose markers were replaced (the local host's URLs).
 */
export async function deployBucket(
  s3: S3Client,
  props: BucketDeploymentProps,
  sourceDirectory: (objectKey: string) => string,
  rewrite: (text: string) => string = (text) => text,
): Promise<string[]> {
  if (String(props.Extract ?? 'true') === 'false') throw new Error('a BucketDeployment with extract: false is not emulated');
  const written: string[] = [];
  const prefix = props.DestinationBucketKeyPrefix ? props.DestinationBucketKeyPrefix.replace(/\/?$/, '/') : '';
  const metadata: Partial<PutObjectCommandInput> = {};
  for (const [name, value] of Object.entries(props.SystemMetadata ?? {})) {
    const field = SYSTEM_METADATA[name.toLowerCase()];
    if (field) (metadata as Record<string, unknown>)[field] = value;
  }
  const userMetadata = Object.keys(props.UserMetadata ?? {}).length > 0 ? { Metadata: props.UserMetadata } : {};
  for (const [index, objectKey] of props.SourceObjectKeys.entries()) {
    const dir = sourceDirectory(objectKey);
    const markers = Object.entries(props.SourceMarkers?.[index] ?? {});
    const jsonEscape = props.SourceMarkersConfig?.[index]?.jsonEscape === true;
    for (const file of filesBelow(dir)) {
      if (!copiedBySync(file, props.Exclude, props.Include)) continue;
      let body = readFileSync(path.join(dir, file));
      if (markers.length > 0) {
        let text = body.toString('utf8');
        for (const [marker, value] of markers) text = text.split(marker).join(jsonEscape ? JSON.stringify(String(value)).slice(1, -1) : String(value));
        body = Buffer.from(rewrite(text), 'utf8');
      }
      const key = `${prefix}${file}`;
      await s3.send(new PutObjectCommand({ Bucket: props.DestinationBucketName, Key: key, Body: body, ...metadata, ...userMetadata }));
      written.push(key);
    }
  }
  return written;
}
