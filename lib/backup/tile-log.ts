import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { LEDGER_LOG } from '../../functions/contract/site-paths';

/**
 * The ledger's tile log (tiles, entry bundles, checkpoints) copied file for file: from the
 * catalogue bucket below its prefix in AWS, from a folder locally. Its objects only ever grow and
 * are never rewritten (a partial tile gets a new name), so a copy taken after the table holds every
 * object the table's ledger refers to.
 */
export interface TileLogPlace {
  list(): Promise<string[]>;
  read(key: string): Promise<Buffer | null>;
  write(key: string, bytes: Buffer): Promise<void>;
}

export function directoryTileLog(dir: string): TileLogPlace {
  return {
    async list() {
      const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
      return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
    },
    read: (key) => readFile(path.join(dir, key)).catch(() => null),
    async write(key, bytes) {
      await mkdir(path.dirname(path.join(dir, key)), { recursive: true });
      await writeFile(path.join(dir, key), bytes);
    },
  };
}

export function bucketTileLog(client: S3Client, bucket: string, prefix = LEDGER_LOG.keyPrefix): TileLogPlace {
  return {
    async list() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key.slice(prefix.length));
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    },
    async read(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}${key}` }));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (error) {
        if ((error as Error).name === 'NoSuchKey') return null;
        throw error;
      }
    },
    async write(key, bytes) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}${key}`, Body: bytes }));
    },
  };
}

/**
 * Copies every object of `from` that `to` lacks; returns how many were written. A tile or bundle
 * `to` holds with other bytes is another log: refused. The latest checkpoint `to` already has is
 * kept (it is the newer one: a restored older checkpoint would look like a rollback to monitors).
 */
export async function copyTileLog(from: TileLogPlace, to: TileLogPlace): Promise<number> {
  let written = 0;
  for (const key of await from.list()) {
    const bytes = await from.read(key);
    if (!bytes) continue;
    const existing = await to.read(key);
    if (existing && key !== 'checkpoint' && !existing.equals(bytes)) throw new Error(`ledger/${key} differs between the backup and the destination: they are not the same log`);
    if (!existing) {
      await to.write(key, bytes);
      written++;
    }
  }
  return written;
}
