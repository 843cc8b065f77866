import net from 'node:net';
import zlib from 'node:zlib';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as sent, decoded from its Content-Encoding. */
  body: string;
}

/**
 * Sends bytes as they are over a fresh TCP connection and reads one answer until the server
 * closes or the declared length is in. fetch and node:http validate what they send; this does
 * not, so tests can send what a hostile or broken client would.
 */
export function rawRequest(url: string, bytes: Buffer | string, options: { timeoutMs?: number; head?: boolean } = {}): Promise<RawResponse | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (value: RawResponse | null, error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => finish(null, new Error(`no complete answer within ${options.timeoutMs ?? 10_000} ms`)), options.timeoutMs ?? 10_000);
    const tryParse = (final: boolean) => {
      let all = Buffer.concat(chunks);
      // Interim 1xx answers (100 Continue to a request with Expect: 100-continue) come before the answer.
      while (/^HTTP\/1\.[01] 1\d\d /.test(all.subarray(0, 16).toString('latin1')) && all.indexOf('\r\n\r\n') >= 0) all = all.subarray(all.indexOf('\r\n\r\n') + 4);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return final ? finish(null) : undefined;
      const [statusLine, ...lines] = all.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let body = all.subarray(end + 4);
      const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
      const bodyless = options.head || status === 204 || status === 304;
      if (!bodyless && length !== undefined && body.length < length && !final) return undefined;
      if (!bodyless && length === undefined && headers['transfer-encoding'] === undefined && !final) return undefined;
      if (bodyless) body = Buffer.alloc(0);
      else if (length !== undefined) body = body.subarray(0, length);
      const encoding = headers['content-encoding'];
      const decoded = encoding === 'br' ? zlib.brotliDecompressSync(body) : encoding === 'gzip' ? zlib.gunzipSync(body) : body;
      finish({ status, headers, body: decoded.toString('utf8') });
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    socket.on('error', () => tryParse(true));
    socket.write(bytes);
  });
}
