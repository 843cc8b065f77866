/** Declarations for the stand-ins' packages that ship no types of their own. */

declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  /** An S3-compatible server on the local file system (s3rver 3). */
  export default class S3rver {
    constructor(options: { port?: number; address?: string; silent?: boolean; directory: string; configureBuckets?: Array<{ name: string }> });
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}

declare module 'dynalite' {
  import type { Server } from 'node:http';

  /** A DynamoDB-compatible node:http server (dynalite 4): in memory, or on disk under `path`. */
  export default function dynalite(options: { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number; path?: string }): Server;
}
