import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { logResourceHeaders, type LogResource } from '../domain/ledger/tiles';

/**
 * Where the ledger's public tile log is written (docs/ledger.md#storage-ports): the catalogue
 * bucket under the log's key prefix, a folder on this machine, or memory (tests). Thin adapters:
 * what to write comes from tileResources (pure), with the headers of logResourceHeaders, so all
 * serve the same bytes with the same headers.
 *
 * Guarantees every implementation keeps (test/integration/store-ports.test.ts):
 *  - write resolves once the resource is durable and readable by anyone (read-after-write), with
 *    its Content-Type and Cache-Control; a resource is replaced whole, never seen half-written.
 *  - read returns the bytes last written at the path, or null when none were.
 *  - Writes to different paths may run concurrently; the writer orders what must be ordered (the
 *    mutable `checkpoint` after everything it names: writeLogResources). A store that does not
 *    answer throws.
 */
export interface TileStore {
  /** Where, for messages. */
  readonly location: string;
  /** A resource's bytes (path relative to the log prefix), or null when absent. */
  read(logPath: string): Promise<Buffer | null>;
  write(resource: LogResource): Promise<void>;
}

/** The log in this process's memory: what a test reads back, with the headers each resource is served with. */
export function memoryTileStore(): TileStore & { resources: Map<string, { bytes: Buffer; contentType: string; cacheControl: string }> } {
  const resources = new Map<string, { bytes: Buffer; contentType: string; cacheControl: string }>();
  return {
    location: 'memory',
    resources,
    async read(logPath) {
      const found = resources.get(logPath);
      return found ? Buffer.from(found.bytes) : null;
    },
    async write(resource) {
      resources.set(resource.path, { bytes: Buffer.from(resource.bytes), ...logResourceHeaders(resource.path) });
    },
  };
}

/** Writes resources in order, a few at a time, but the mutable `checkpoint` only after everything before it. */
export async function writeLogResources(store: TileStore, resources: readonly LogResource[], onProgress?: (done: number, total: number) => void): Promise<void> {
  const immutableFirst = resources.filter((r) => r.path !== 'checkpoint');
  const last = resources.filter((r) => r.path === 'checkpoint');
  let done = 0;
  const PARALLEL = 8;
  for (let at = 0; at < immutableFirst.length; at += PARALLEL) {
    await Promise.all(immutableFirst.slice(at, at + PARALLEL).map((r) => store.write(r)));
    done += Math.min(PARALLEL, immutableFirst.length - at);
    onProgress?.(done, resources.length);
  }
  for (const r of last) {
    await store.write(r);
    onProgress?.(++done, resources.length);
  }
}

/** The log as files below `dir` (`dir/checkpoint`, `dir/tile/0/000`, ...), each replaced atomically. */
export function directoryTileStore(dir: string): TileStore {
  const fileOf = (logPath: string) => path.join(dir, ...logPath.split('/'));
  return {
    location: dir,
    async read(logPath) {
      try {
        return await readFile(fileOf(logPath));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async write(resource) {
      const file = fileOf(resource.path);
      await mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, resource.bytes);
      await rename(temporary, file);
    },
  };
}

/** The log as objects `<keyPrefix><path>` in a bucket, with Content-Type and Cache-Control as object metadata (the API passes them through). */
export function bucketTileStore(client: S3Client, bucket: string, keyPrefix: string): TileStore {
  return {
    location: `s3://${bucket}/${keyPrefix}`,
    async read(logPath) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${keyPrefix}${logPath}` }));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (error) {
        if ((error as Error).name === 'NoSuchKey' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
        throw error;
      }
    },
    async write(resource) {
      const headers = logResourceHeaders(resource.path);
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `${keyPrefix}${resource.path}`,
          Body: resource.bytes,
          ContentType: headers.contentType,
          CacheControl: headers.cacheControl,
        }),
      );
    },
  };
}

/** The same store, every path below `dir` (a log that succeeded another: its tiles below logs/<id>/ of the log prefix). */
export function tileStoreIn(store: TileStore, dir: string): TileStore {
  if (!dir) return store;
  return {
    location: `${store.location}${store.location.endsWith('/') ? '' : '/'}${dir}`,
    read: (logPath) => store.read(`${dir}${logPath}`),
    write: (resource) => store.write({ ...resource, path: `${dir}${resource.path}` }),
  };
}
