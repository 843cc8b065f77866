// First: the handlers this host runs from source import @middy/core, an ES-module-only package.
import './esm-only-packages';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { demoDocument } from '../../fixtures/demo';
import { devLedgerSigner } from '../ledger/dev-key';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { loadDocument, validateRecords } from '../loader/load';
import { localOrigins } from '../contract/origins';
import { publishSite } from '../publish/site';
import { canonicalSources } from '../publish/sources';
import { startEmbeddedStore, type EmbeddedStore } from './embedded-store';
import { startLocalServer, type LocalServer } from './server';
import { startLocalSequencer, type LocalSequencer } from './sequencer-loop';
import type { SequencerRun } from '../../functions/ledger-writer/sequencer';
import { forgetIngressKeys } from '../../functions/config/ingress-keys';

/** The development verification keys of the event sources (the local host only; docs/ingress.md). */
export const DEV_INGRESS_SECRETS_FILE = path.resolve(__dirname, '../../fixtures/ingress-dev-secrets.json');

export const LOCAL_TABLE = 'trust-records';

export const LOCAL_REGION = 'eu-central-1';

/**
 * A store on this machine (dynalite, DynamoDB Local) takes any credentials; anything else is a
 * real DynamoDB endpoint, reached with the ambient AWS credentials.
 */
export function isLoopbackEndpoint(endpoint: string): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(endpoint).hostname);
  } catch {
    return false;
  }
}

/** Points the handlers (through the SDK's own AWS_ENDPOINT_URL_DYNAMODB) at a store: dummy credentials for a loopback store. */
export function configureLocalEnvironment(endpoint: string, table = LOCAL_TABLE, region = LOCAL_REGION): void {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.TABLE_NAME = table;
  process.env.AWS_REGION = region;
  if (isLoopbackEndpoint(endpoint)) {
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  }
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // Every invocation in flight here shares the handlers' one store client, where on AWS each runs
  // in an environment of its own: no cap on its sockets (functions/store/client.ts).
  process.env.STORE_MAX_SOCKETS ??= 'Infinity';
}

export function localClient(endpoint: string, region = LOCAL_REGION): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region,
    ...(isLoopbackEndpoint(endpoint) ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
}

export interface LocalService {
  url: string;
  storeEndpoint: string;
  /** The folder the ledger's tile log is written to and served from. */
  tilesDir: string;
  /** The embedded store, or null when serving from an external endpoint. */
  store: EmbeddedStore | null;
  server: LocalServer;
  /** The sequencer integrating received events (docs/ingress.md#the-sequencer); null when turned off. */
  sequencer: LocalSequencer | null;
  close(): Promise<void>;
}

export interface LocalServiceOptions {
  port?: number;
  /** Keep the embedded store (and, unless tilesDir or keyDir say otherwise, the tile log and the development key) on disk here; none: in memory. */
  dataDir?: string;
  /** Folder of the development ledger key (default: dataDir, else .data/). */
  keyDir?: string;
  /**
   * Serve from this DynamoDB-compatible endpoint instead of an embedded store (a separately
   * started `npm run store`, DynamoDB Local, or a real DynamoDB endpoint).
   */
  endpoint?: string;
  /** Table to serve (default trust-records). */
  table?: string;
  /** Region of the endpoint (default eu-central-1). */
  region?: string;
  /**
   * Load the demo data (creating the table when missing). Always true for the embedded store;
   * for an external endpoint only when asked, so a real table is never written by accident.
   */
  loadDemo?: boolean;
  /**
   * Verifier keys the handlers trust (LEDGER_VERIFIER_KEYS). Default: the environment's, else
   * the development key's.
   */
  verifierKeys?: string;
  /** Instant the demo data is generated around (default: now). */
  anchor?: Date;
  onProgress?: (written: number, total: number) => void;
  onLedgerProgress?: (stage: string, done: number, total: number) => void;
  /**
   * Folder of already built documents to serve as they are. By default the service builds the
   * developer documents itself, for its own URL, into a fresh folder it removes on close, so the
   * OpenAPI servers, the catalogue and every example name the URL it is reached at.
   */
  siteDir?: string;
  /**
   * Folder of the ledger's tile log, written by the demo load and served under /ledger/. Default:
   * DIR/tiles with --data DIR, else a fresh folder removed on close.
   */
  tilesDir?: string;
  /**
   * Verification keys of the event sources the receivers use (INGRESS_SECRETS_FILE); default the
   * development keys in fixtures/ingress-dev-secrets.json. null: none, so every source is gated.
   */
  ingressSecretsFile?: string | null;
  /**
   * Run the sequencer in this process, integrating received events into the records and the
   * ledger (default: when this service loaded the table, with its development key). Off,
   * deliveries stay pending (a test drives a sequencer itself).
   */
  sequencer?: boolean;
  /** Called after each sequencer batch that integrated or set aside anything. */
  onSequenced?: (run: SequencerRun) => void;
}

/**
 * The store (embedded, or the external endpoint given), the table with demo data (through the
 * loader) when asked, and the HTTP server running the same handler modules as the Lambdas.
 */
export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const store = options.endpoint ? null : await startEmbeddedStore({ dataDir: options.dataDir });
  const endpoint = options.endpoint ?? store!.endpoint;
  const table = options.table ?? LOCAL_TABLE;
  const region = options.region ?? LOCAL_REGION;
  configureLocalEnvironment(endpoint, table, region);
  // The development ledger key lives beside the data (in .data/ when the store is in memory);
  // the handlers trust its verifier key, as a deployment trusts LEDGER_VERIFIER_KEYS.
  const { signer, retiredVerifierKeys, retiredLogs } = await devLedgerSigner(options.keyDir ?? options.dataDir);
  const ownTiles = options.tilesDir || options.dataDir ? null : await mkdtemp(path.join(os.tmpdir(), 'trust-tiles-'));
  const tilesDir = options.tilesDir ?? (options.dataDir ? path.join(options.dataDir, 'tiles') : ownTiles!);
  const anchor = options.anchor ?? new Date();
  if (store || options.loadDemo) {
    const client = localClient(endpoint, region);
    try {
      await loadDocument(demoDocument(anchor), {
        client,
        table,
        createTable: true,
        signer,
        tiles: directoryTileStore(tilesDir),
        onProgress: options.onProgress,
        onLedgerProgress: options.onLedgerProgress,
      });
    } finally {
      client.destroy();
    }
  }
  const secretsFile = options.ingressSecretsFile === undefined ? DEV_INGRESS_SECRETS_FILE : options.ingressSecretsFile;
  if (secretsFile === null) delete process.env.INGRESS_SECRETS_FILE;
  else process.env.INGRESS_SECRETS_FILE = secretsFile;
  forgetIngressKeys();
  const devKeys = [signer.verifierKey, ...retiredVerifierKeys].join(','); // after a key change (npm run rotate), the retired keys too
  process.env.LEDGER_VERIFIER_KEYS = options.verifierKeys ?? (store || options.loadDemo ? devKeys : (process.env.LEDGER_VERIFIER_KEYS ?? devKeys));
  // With the development keys, their retired logs' final sizes too (docs/ledger.md#the-runbook).
  if (process.env.LEDGER_VERIFIER_KEYS === devKeys && retiredLogs.length > 0) process.env.LEDGER_RETIRED_LOGS = retiredLogs.join(',');
  const ownSite = options.siteDir ? null : await mkdtemp(path.join(os.tmpdir(), 'trust-site-'));
  const siteDir = options.siteDir ?? ownSite!;
  const server = await startLocalServer({ port: options.port, siteDir, tilesDir });
  if (ownSite) {
    try {
      // The port is known only once the server listens (port 0 picks a free one).
      // Ingress examples derived from the demo records as loaded, dated no earlier than the service's
      // start: newer than every entry, also those earlier runs of a kept store left, so they advance
      // the records. A table this service did not load gets templates (its records are unknown here).
      const ingressExamples = store || options.loadDemo ? { ingressRecords: validateRecords(demoDocument(anchor)), ingressExamplesAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') } : {};
      await publishSite(ownSite, localOrigins(new URL(server.url).port), { ...canonicalSources(), ...ingressExamples });
    } catch (error) {
      await server.close();
      await store?.close();
      await rm(ownSite, { recursive: true, force: true });
      if (ownTiles) await rm(ownTiles, { recursive: true, force: true });
      throw error;
    }
  }
  // Only into a table this service loaded itself: a table someone else loaded is signed with another key.
  const sequencerClient = options.sequencer === false || !(store || options.loadDemo) ? null : localClient(endpoint, region);
  const sequencer = sequencerClient ? startLocalSequencer({ client: sequencerClient, table, signer, tiles: directoryTileStore(tilesDir), onRun: options.onSequenced }) : null;
  const service: LocalService = {
    url: server.url,
    storeEndpoint: endpoint,
    tilesDir,
    store,
    server,
    sequencer,
    // The store in use now: a caller may have restarted it (service.store = ...).
    close: async () => {
      await sequencer?.stop();
      sequencerClient?.destroy();
      await service.server.close();
      await service.store?.close();
      if (ownSite) await rm(ownSite, { recursive: true, force: true });
      if (ownTiles) await rm(ownTiles, { recursive: true, force: true });
    },
  };
  return service;
}
