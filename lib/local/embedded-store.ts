import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// dynalite ships no types; it returns a node:http server speaking the DynamoDB API.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dynalite: (options: { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number; path?: string }) => Server = require('dynalite');

export interface EmbeddedStore {
  endpoint: string;
  close(): Promise<void>;
}

/** Starts a DynamoDB-compatible store on 127.0.0.1 (in memory, or on disk under `dataDir`). */
export async function startEmbeddedStore(options: { port?: number; dataDir?: string } = {}): Promise<EmbeddedStore> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(options.dataDir ? { path: options.dataDir } : {}) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    // Clients keep connections alive; drop them so close() ends now, as a crashed store would.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as Server & { closeAllConnections(): void }).closeAllConnections();
      }),
  };
}
