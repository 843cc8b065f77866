import type http from 'node:http';
import { ClassicLevel } from 'classic-level';
import dynalite from 'dynalite';
import { keepingIdleConnections, listenOnLoopback } from './listen';

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

/** How long close() waits for requests the store already took to finish before it closes its database. */
const DRAIN_MS = 5000;

/** Starts a DynamoDB-compatible store on 127.0.0.1 (in memory, or on disk under `dataDir`). */
export async function startEmbeddedStore(options: { port?: number; dataDir?: string } = {}): Promise<EmbeddedStore> {
  if (options.dataDir) await ensureStoreFree(options.dataDir);
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(options.dataDir ? { path: options.dataDir } : {}) });
  const work = trackRequests(server);
  const listening = await listenOnLoopback(keepingIdleConnections(server), options.port);
  return {
    endpoint: listening.url,
    // Clients keep connections alive; close() drops them at once, as a crashed store would. But a
    // request dynalite already took goes on after its client is gone (a client that timed out, or
    // whose connection was dropped), and dynalite closes its database under it: a Query that starts
    // then throws "Database is not open" from a callback, which ends the process. So new connections
    // are refused, and the database is closed only once what was taken has finished.
    close: async () => {
      work.refuseConnections();
      server.closeAllConnections();
      await work.drained(DRAIN_MS);
      await listening.close();
    },
  };
}

/**
 * Counts the requests dynalite has taken and not yet answered. A request is done when dynalite
 * ends its response (even to a client gone), or when its connection closed before its body
 * arrived (dynalite never starts one it has not read whole).
 */
function trackRequests(server: http.Server) {
  let inFlight = 0;
  let refusing = false;
  const waiting = new Set<() => void>();
  server.on('connection', (socket) => {
    if (refusing) socket.destroy();
  });
  // Before dynalite's own listener, so that even an answer it gives at once is counted.
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight++;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight--;
      if (inFlight === 0) for (const resolve of waiting) resolve();
    };
    const end = res.end;
    res.end = function (this: http.ServerResponse, ...args: unknown[]) {
      finish();
      return (end as (...a: unknown[]) => http.ServerResponse).apply(this, args);
    } as typeof res.end;
    res.once('close', () => {
      if (!req.complete) finish();
    });
  });
  return {
    refuseConnections: () => {
      refusing = true;
    },
    /** Resolves when nothing is in flight, or after `withinMs` whatever is. */
    drained: (withinMs: number) =>
      inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(settle, withinMs);
            function settle() {
              clearTimeout(timer);
              waiting.delete(settle);
              resolve();
            }
            waiting.add(settle);
          }),
  };
}
