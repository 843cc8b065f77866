import path from 'node:path';

/**
 * Where the local commands keep what outlives one run: `.data/` at the repository root (ignored
 * by git), or LOCAL_DATA_DIR. `npm start` keeps its demo store and tile log in `demo/`, `npm run
 * monitor` its state in `monitor/`, and the development ledger key lies at the top
 * (lib/ledger/dev-key.ts), so that a restart serves the same log under the same key and a monitor
 * run before it and after it sees the log only grow (docs/ledger.md#running-it-locally).
 */
export function localDataRoot(): string {
  const configured = process.env.LOCAL_DATA_DIR;
  return configured ? path.resolve(configured) : path.resolve(__dirname, '../../.data');
}

/** The embedded store, its tile log and its demo's record of when it was loaded, for `npm start` without --data. */
export function demoStoreDir(): string {
  return path.join(localDataRoot(), 'demo');
}

export const DEFAULT_PORT = 3000;

/**
 * The service a local command talks to when it is given no URL: SERVICE_URL, else the port `npm
 * start` listens on (PORT, as it reads it), else 3000. A terminal with PORT exported reaches the
 * service started from it.
 */
export function defaultServiceUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SERVICE_URL) return env.SERVICE_URL.replace(/\/+$/, '');
  return `http://127.0.0.1:${env.PORT || DEFAULT_PORT}`;
}

/**
 * The monitor's state for the log served at `baseUrl`: one file per host and port under
 * `.data/monitor/` (the log of `npm start` and that of an assembly run elsewhere are different
 * logs, and each keeps its own).
 */
export function monitorStateFile(baseUrl: string): string {
  let name: string;
  try {
    const url = new URL(baseUrl);
    name = `${url.hostname}_${url.port || (url.protocol === 'https:' ? '443' : '80')}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    name = baseUrl;
  }
  return path.join(localDataRoot(), 'monitor', `${name.replace(/[^A-Za-z0-9._-]+/g, '_')}.json`);
}
