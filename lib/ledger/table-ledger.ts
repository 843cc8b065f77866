import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  acquireLedgerLock,
  ledgerLeafItems,
  ledgerTileItems,
  publishLedgerHead,
  readLedgerLeaves,
  releaseLedgerLock,
} from '../../functions/store/ledger';
import { putItems } from '../../functions/store/write';
import { decodeEntryBundle, tilePath } from '../../functions/domain/ledger/tiles';
import { AppendOnlyLog, LedgerIntegrityError } from './log';
import { writeLogResources, type TileStore } from './tile-store';
import type { LedgerSigner } from './signer';

export type LedgerStage = 'reading leaves' | 'writing leaves' | 'writing tiles';

export interface TableLedgerOptions {
  client: DynamoDBClient;
  table: string;
  signer: LedgerSigner;
  /** Take the lock even if a load that stopped part-way left it held. */
  unlock?: boolean;
  onProgress?: (stage: LedgerStage, done: number, total: number) => void;
  /** Where the C2SP tlog-tiles log is written (a folder, the catalogue bucket); none: no tiles. */
  tiles?: TileStore;
}

export interface LedgerPublication {
  origin: string;
  treeSize: number;
  appended: number;
  checkpoint: string;
  verifierKey: string;
}

/**
 * A load's hold on the table's log: lock, rebuild the tree from the stored leaves (checked
 * against the published checkpoint), append, store the new leaves, then publish the new head and
 * release the lock in one conditional write. Until the head is published, readers and the next
 * load see the previous tree.
 */
export class TableLedger {
  private released = false;

  private constructor(
    private readonly options: TableLedgerOptions,
    private readonly lockId: string,
    readonly log: AppendOnlyLog,
    /** The entries of the published size's partial bundle, read back from the tile store when the load opened. */
    private readonly previous: Buffer[],
  ) {}

  static async open(options: TableLedgerOptions): Promise<TableLedger> {
    const lockId = randomUUID();
    const head = await acquireLedgerLock(options.client, options.table, lockId, new Date().toISOString(), options.unlock);
    try {
      if (head.origin && head.origin !== options.signer.name) {
        throw new Error(`the table's log is ${head.origin}, but the signing key is for ${options.signer.name}`);
      }
      const leaves = await readLedgerLeaves(options.client, options.table, head.treeSize, (read, total) =>
        options.onProgress?.('reading leaves', read, total),
      );
      const log = new AppendOnlyLog(options.signer, { leaves, checkpoint: head.checkpoint });
      // Read (and check) the tile log before anything is written: a store that disagrees stops the load here.
      const previous = options.tiles ? await TableLedger.previousEntries(log, options.tiles) : [];
      if (options.tiles) log.checkPreviousEntries(previous);
      return new TableLedger(options, lockId, log, previous);
    } catch (error) {
      await releaseLedgerLock(options.client, options.table, lockId);
      throw error;
    }
  }

  /**
   * Stores the leaves appended by this load (before any record that refers to them) and the hash
   * tiles they grew (what consistency proofs are read from).
   */
  async writeNewLeaves(): Promise<void> {
    const items = [...ledgerLeafItems(this.log.newLeaves), ...ledgerTileItems(this.log.grownHashTiles)];
    await putItems(this.options.client, this.options.table, items, (written) => this.options.onProgress?.('writing leaves', written, items.length));
  }

  /** Publishes the new checkpoint (when anything was appended) and releases the lock. */
  async publish(): Promise<LedgerPublication | null> {
    if (this.log.size === 0) {
      await this.release();
      return null;
    }
    const appended = this.log.newLeaves.length;
    const checkpoint = this.log.checkpoint();
    if (appended === 0) {
      await this.release();
    } else {
      // Tiles and bundles first (new paths, or partial ones at their own .p/<W> path), the head, then `checkpoint`.
      const resources = this.options.tiles ? this.log.tileResources(this.previous) : [];
      const progress = (done: number) => this.options.onProgress?.('writing tiles', done, resources.length);
      if (this.options.tiles) await writeLogResources(this.options.tiles, resources.filter((r) => r.path !== 'checkpoint'), progress);
      await publishLedgerHead(this.options.client, this.options.table, this.lockId, {
        origin: this.log.origin,
        treeSize: this.log.size,
        checkpoint,
        at: new Date().toISOString(),
      });
      this.released = true;
      if (this.options.tiles) await writeLogResources(this.options.tiles, resources.filter((r) => r.path === 'checkpoint'), () => progress(resources.length));
    }
    return { origin: this.log.origin, treeSize: this.log.size, appended, checkpoint, verifierKey: this.options.signer.verifierKey };
  }

  /** The entries of the published size's partial bundle, read back from the tile store. */
  private static async previousEntries(log: AppendOnlyLog, tiles: TileStore): Promise<Buffer[]> {
    const bundle = log.previousBundle;
    if (!bundle) return [];
    const bytes = await tiles.read(tilePath(bundle));
    if (!bytes) {
      throw new LedgerIntegrityError(
        `the tile log at ${tiles.location} has no ${tilePath(bundle)}: tiles are written from a log's first entry on, so this store does not belong to the table's log`,
      );
    }
    return decodeEntryBundle(bytes);
  }

  /** Releases the lock without publishing; safe to call more than once. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await releaseLedgerLock(this.options.client, this.options.table, this.lockId);
  }
}
