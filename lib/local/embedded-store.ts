import { ClassicLevel } from 'classic-level';
import dynalite from 'dynalite';
import { listenOnLoopback } from './listen';

export interface EmbeddedStore {
  endpoint: string;
  close(): Promise<void>;
}

/** The store's folder is held by another process (LevelDB's lock): a second `npm start` on the same data. */
export class StoreInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(`the store in ${dataDir} is in use by another process (another npm start, or npm run store, on the same data): stop that one, or give this one --data DIR`);
    this.name = 'StoreInUseError';
  }
}

/**
 * dynalite opens its LevelDB folder after it starts listening and throws from a callback when the
 * folder is locked, which ends the process with "Database is closed". Opening it here first (and
 * closing it again) turns that into an error that says what holds the folder. Also what must hold
 * before a folder is removed (npm start -- --fresh).
 */
export async function ensureStoreFree(dataDir: string): Promise<void> {
  const db = new ClassicLevel(dataDir);
  try {
    await db.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new StoreInUseError(dataDir);
    throw error;
  }
  await db.close();
}

/** Starts a DynamoDB-compatible store on 127.0.0.1 (in memory, or on disk under `dataDir`). */
export async function startEmbeddedStore(options: { port?: number; dataDir?: string } = {}): Promise<EmbeddedStore> {
  if (options.dataDir) await ensureStoreFree(options.dataDir);
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(options.dataDir ? { path: options.dataDir } : {}) });
  const listening = await listenOnLoopback(server, options.port);
  // Clients keep connections alive; close() drops them so it ends now, as a crashed store would.
  return { endpoint: listening.url, close: listening.close };
}
