import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { unusedPort } from './local';

/**
 * A real RFC 9111 shared cache for tests: Varnish (Debian's `varnish`, 7.x) started by the test in
 * a folder of its own, never the system service. Varnish rather than nginx's proxy cache because
 * nginx ignores `s-maxage`, the directive the service's classes give shared caches, while Varnish
 * takes it before `max-age`, makes `stale-while-revalidate` its grace, stores a variant per `Vary`,
 * and coalesces concurrent misses into one fetch, as a CDN does.
 */
export const VARNISH_HOW_TO_GET = 'Varnish 7 is needed (Debian: apt-get update && apt-get install -y varnish)';

/** The path of varnishd, installing Debian's package first when missing and this process may (root, apt-get present). */
export function ensureVarnish(): string {
  // Debian installs it in /usr/sbin, which a user's PATH may not hold.
  const where = () => ['varnishd', '/usr/sbin/varnishd'].find((file) => spawnSync(file, ['-V'], { encoding: 'utf8' }).status === 0);
  const found = () => where() !== undefined;
  if (found()) return where()!;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', 'varnish']]) {
      const run = spawnSync('apt-get', args, { env, encoding: 'utf8', timeout: 300_000 });
      if (run.status !== 0) throw new Error(`${VARNISH_HOW_TO_GET}; apt-get ${args.join(' ')} failed: ${(run.stderr || run.stdout || String(run.error)).slice(-500)}`);
    }
    if (found()) return where()!;
  }
  throw new Error(`${VARNISH_HOW_TO_GET}; varnishd is not on the PATH`);
}

export interface SharedCache {
  url: string;
  close(): Promise<void>;
}

/**
 * The VCL: Varnish's builtin behaviour with one change. A CDN keys its copies on what its cache
 * policy names (the path, the query, the negotiated headers), never on Host; the builtin VCL keys
 * on Host and URL. Hashing the URL only makes this cache share one copy among requests that
 * differ in Host, as the edge does, so a test can show that a forged Host changes nothing the
 * next client gets.
 */
const vcl = (backendPort: number) => `vcl 4.1;

backend origin {
  .host = "127.0.0.1";
  .port = "${backendPort}";
}

sub vcl_hash {
  hash_data(req.url);
  return (lookup);
}
`;

async function listening(port: number, child: ChildProcess, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`varnishd ended (${child.exitCode}) before listening`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('varnishd did not listen in time');
}

/**
 * Varnish in front of 127.0.0.1:backendPort, with nothing of its own added to what the answers
 * say: no default lifetime (default_ttl=0: an answer without a lifetime is not kept) and no grace
 * beyond an answer's stale-while-revalidate (default_grace=0).
 */
export async function startVarnish(backendPort: number): Promise<SharedCache> {
  const varnishd = ensureVarnish();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shared-cache-'));
  // Varnish's worker runs as its own user and must read the folder to compile the VCL.
  chmodSync(dir, 0o755);
  const vclFile = path.join(dir, 'default.vcl');
  writeFileSync(vclFile, vcl(backendPort), { mode: 0o644 });
  const port = await unusedPort();
  const stderr: string[] = [];
  const child = spawn(
    varnishd,
    ['-n', dir, '-a', `127.0.0.1:${port}`, '-f', vclFile, '-s', 'malloc,64m', '-F', '-p', 'default_ttl=0', '-p', 'default_grace=0', '-p', 'default_keep=0'],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // Its own process group: the manager and the cache process end together.
      process.kill(-child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await listening(port, child, Date.now() + 30_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}: ${stderr.join('').slice(-1000)}`);
  }
  return { url: `http://127.0.0.1:${port}`, close: stop };
}

export interface CountingProxy {
  port: number;
  /** Requests that reached the origin for this exact target (path and query). */
  count(target: string): number;
  close(): Promise<void>;
}

/** Passes every request through to the origin unchanged, counting them by target: what reaches the origin. */
export async function startCountingProxy(originUrl: string): Promise<CountingProxy> {
  const origin = new URL(originUrl);
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    counts.set(req.url!, (counts.get(req.url!) ?? 0) + 1);
    const upstream = http.request({ hostname: origin.hostname, port: origin.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    count: (target) => counts.get(target) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
