import dynalite from 'dynalite';
import { listenOnLoopback } from './listen';

export interface EmbeddedStore {
  endpoint: string;
  close(): Promise<void>;
}

/** Starts a DynamoDB-compatible store on 127.0.0.1 (in memory, or on disk under `dataDir`). */
export async function startEmbeddedStore(options: { port?: number; dataDir?: string } = {}): Promise<EmbeddedStore> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(options.dataDir ? { path: options.dataDir } : {}) });
  const listening = await listenOnLoopback(server, options.port);
  // Clients keep connections alive; close() drops them so it ends now, as a crashed store would.
  return { endpoint: listening.url, close: listening.close };
}
