import http from 'node:http';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startEmbeddedStore } from '../../lib/local/embedded-store';
import { listenOnLoopback } from '../../lib/local/listen';
import { startAwsProxy } from '../../bench/lib/capacity/aws-proxy';

/**
 * Kept-alive connections to the local AWS stand-ins. The SDK's clients keep their connections and
 * send many requests at once; a Node.js server closes a connection idle for 5 s, and a request sent
 * on one as it closes fails with "socket hang up" (lib/local/listen.ts keepingIdleConnections).
 * The stand-ins keep idle connections until they are closed; the bench's proxy sends a request
 * again, once, when the connection it reused to reach an upstream was closed under it.
 */
// A Node.js server's keepAliveTimeout (5 s), and the second Node waits beyond it before closing (measured: about 6 s).
const NODE_CLOSES_IDLE_AFTER_MS = 6000;

test('the embedded store keeps a client\'s idle connection past the 5 s after which a Node.js server closes it, and close() still drops it', async () => {
  const store = await startEmbeddedStore();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const client = new DynamoDBClient({ endpoint: store.endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1, requestHandler: { httpAgent: agent } });
  try {
    await client.send(new ListTablesCommand({}));
    const [socket] = Object.values(agent.freeSockets).flat();
    expect(socket).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, NODE_CLOSES_IDLE_AFTER_MS + 1500));
    // Closed by the server, the socket would have ended and left the agent's free list.
    expect(socket!.destroyed).toBe(false);
    expect(Object.values(agent.freeSockets).flat()).toContain(socket);
    await client.send(new ListTablesCommand({}));
    expect(Object.values(agent.freeSockets).flat()).toEqual([socket]);
    const ended = new Promise((resolve) => socket!.once('close', resolve));
    await store.close();
    await ended;
  } finally {
    client.destroy();
    agent.destroy();
  }
}, 20_000);

test('the bench proxy sends a request again on a new connection when its upstream closed the one it reused', async () => {
  // An upstream that answers the first request on a connection and drops the connection at the second, unanswered.
  const upstream = http.createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { served?: number };
    socket.served = (socket.served ?? 0) + 1;
    if (socket.served > 1) return void socket.destroy();
    res.end(`answered ${req.url}`);
  });
  const listening = await listenOnLoopback(upstream);
  const proxy = await startAwsProxy({ dynamodb: 'http://127.0.0.1:9', s3: listening.url });
  const get = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(new URL(path, proxy.s3), { agent: false }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
  try {
    expect(await get('/bucket/one')).toEqual({ status: 200, body: 'answered /bucket/one' });
    expect(await get('/bucket/two')).toEqual({ status: 200, body: 'answered /bucket/two' });
    expect(await get('/bucket/three')).toEqual({ status: 200, body: 'answered /bucket/three' });
  } finally {
    await proxy.close();
    await listening.close();
  }
});
