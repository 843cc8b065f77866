/**
 * The local store (`npm run store`, bin/store.ts) in a process of its own, for benches that keep
 * its memory apart from the process they measure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/** A TCP port free on 127.0.0.1 at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the store on `port`, resolved once it listens; held in memory, or on disk in `dataDir` (--data). */
export function startStore(root: string, port: number, dataDir?: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const args = ['--import', 'tsx', path.join(root, 'bin/store.ts'), '--port', String(port), ...(dataDir !== undefined ? ['--data', dataDir] : [])];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', reject);
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('store listening') && resolve(child));
  });
}
