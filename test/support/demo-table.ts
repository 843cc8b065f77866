import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { demoDocument } from '../../fixtures/demo';
import type { CheckpointSigner } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { loadDocument } from '../../lib/loader/load';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';

export interface DemoTable {
  store: EmbeddedStore;
  /** The folder of the ledger's tile log. */
  tiles: string;
  /** Loads more records of the same demo document (the ledger grows). */
  load(references: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * An embedded store whose table holds some records of the demo document (generated an hour ago),
 * loaded through the loader with `signer` (ledger and tile log included), for tests that run the
 * sequencer against it. The handlers' environment (AWS_ENDPOINT_URL_DYNAMODB, TABLE_NAME) points at it.
 */
export async function startDemoTable(table: string, signer: CheckpointSigner, references: readonly string[]): Promise<DemoTable> {
  const store = await startEmbeddedStore();
  configureLocalEnvironment(store.endpoint, table);
  const tiles = await mkdtemp(path.join(os.tmpdir(), `${table}-`));
  const document = demoDocument(new Date(Date.now() - 60 * 60_000));
  let created = false;
  const load = async (refs: readonly string[]) => {
    const client = localClient(store.endpoint);
    try {
      await loadDocument({ records: document.records.filter((r: any) => refs.includes(r.reference)) }, { client, table, createTable: !created, signer, tiles: directoryTileStore(tiles) });
      created = true;
    } finally {
      client.destroy();
    }
  };
  await load(references);
  return {
    store,
    tiles,
    load,
    close: async () => {
      await store.close();
      await rm(tiles, { recursive: true, force: true });
    },
  };
}
