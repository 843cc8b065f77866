import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Stops accepting, drops kept-alive connections (a client would otherwise hold the close), and resolves when closed. */
  close(): Promise<void>;
}

/** Starts `server` on 127.0.0.1 (port 0: any free one, as every test server does), or on `host`. */
export async function listenOnLoopback(server: http.Server, port = 0, host = '127.0.0.1'): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
