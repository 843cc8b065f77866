import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Stops accepting, drops kept-alive connections (a client would otherwise hold the close), and resolves when closed. */
  close(): Promise<void>;
}

/**
 * Has `server`, a stand-in for an AWS endpoint, keep its clients' idle connections until it is
 * closed. The AWS SDK's clients keep connections alive and send many requests at once; a Node.js
 * server closes a connection idle for 5 s (its keepAliveTimeout, and a second more), and a request
 * sent on one as it closes fails with "socket hang up" (ECONNRESET). The SDK retries such a failure only while its
 * retry quota lasts (500 tokens, 10 a timeout error: @smithy/core's standard retry strategy), so a
 * burst of requests on connections closing at once could fail a whole sequencer batch (it failed a
 * capacity run once, in parts, after the sequencer waited on its part writers, and made the local
 * sequencer run a batch again now and then). close() still drops every connection
 * (listenOnLoopback).
 */
export function keepingIdleConnections<S extends http.Server>(server: S): S {
  server.keepAliveTimeout = 0;
  return server;
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
