import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { demoDocument } from '../../fixtures/demo';
import { devLedgerSigner } from '../ledger/dev-key';
import { loadDocument } from '../loader/load';
import { startEmbeddedStore, type EmbeddedStore } from './embedded-store';
import { startLocalServer, type LocalServer } from './server';

export const LOCAL_TABLE = 'trust-records';

/** Points the handlers (and the AWS SDK) at a local store, with dummy credentials. */
export function configureLocalEnvironment(endpoint: string, table = LOCAL_TABLE): void {
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.TABLE_NAME = table;
  process.env.AWS_REGION ??= 'eu-central-1';
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

export interface LocalService {
  url: string;
  storeEndpoint: string;
  store: EmbeddedStore;
  server: LocalServer;
  close(): Promise<void>;
}

export interface LocalServiceOptions {
  port?: number;
  dataDir?: string;
  /** Instant the demo data is generated around (default: now). */
  anchor?: Date;
  onProgress?: (written: number, total: number) => void;
  onLedgerProgress?: (stage: string, done: number, total: number) => void;
  /** Folder of built documents to serve (default: dist/site). */
  siteDir?: string;
}

/** Embedded store + table + demo data (through the loader) + the HTTP server. */
export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const store = await startEmbeddedStore({ dataDir: options.dataDir });
  configureLocalEnvironment(store.endpoint);
  const client = localClient(store.endpoint);
  // The development ledger key lives beside the data (in .data/ when the store is in memory);
  // the handlers trust its verifier key, as a deployment trusts LEDGER_VERIFIER_KEYS.
  const { signer } = await devLedgerSigner(options.dataDir);
  await loadDocument(demoDocument(options.anchor ?? new Date()), {
    client,
    table: LOCAL_TABLE,
    createTable: true,
    signer,
    onProgress: options.onProgress,
    onLedgerProgress: options.onLedgerProgress,
  });
  client.destroy();
  process.env.LEDGER_VERIFIER_KEYS = signer.verifierKey;
  const server = await startLocalServer({ port: options.port, siteDir: options.siteDir });
  const service: LocalService = {
    url: server.url,
    storeEndpoint: store.endpoint,
    store,
    server,
    // The store in use now: a caller may have restarted it (service.store = ...).
    close: async () => {
      await service.server.close();
      await service.store.close();
    },
  };
  return service;
}
