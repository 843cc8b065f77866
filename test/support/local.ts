import net from 'node:net';
import { startLocalService, type LocalService, type LocalServiceOptions } from '../../lib/local/service';

/**
 * Starts the whole local service (embedded store, demo data through the loader, HTTP server on
 * a free port) for one test file. Use in beforeAll/afterAll.
 */
export async function startTestService(anchor = new Date(), options: Omit<LocalServiceOptions, 'port' | 'anchor'> = {}): Promise<LocalService> {
  return startLocalService({ port: 0, anchor, ...options });
}

export async function getJson(url: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
}

/** A port on 127.0.0.1 nothing listens on now: taken, then released (a store that refuses connections, or a port to start one on). */
export async function unusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
