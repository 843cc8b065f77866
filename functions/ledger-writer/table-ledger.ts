import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  acquireLedgerLock,
  ledgerLeafItems,
  ledgerTileItems,
  publishLedgerHead,
  readLedgerEdgeTiles,
  readLedgerLeaves,
  releaseLedgerLock,
} from '../store/ledger';
import { putItems } from '../store/write';
import { decodeEntryBundle, tilePath } from '#verify/node/tlog-tiles';
import { partialHashTiles } from '../domain/ledger/tiles';
import { AppendOnlyLog, LedgerIntegrityError } from './log';
import { writeLogResources, type TileStore } from './tile-store';
import type { CheckpointSigner } from './signer';

/** A load's lease: a long load renews nothing, so this bounds how long one may write. */
export const DEFAULT_LEASE_MS = 30 * 60_000;

export type LedgerStage = 'reading leaves' | 'writing leaves' | 'writing tiles';

export interface TableLedgerOptions {
  client: DynamoDBClient;
  table: string;
  signer: CheckpointSigner;
  /** Take the lease even if a writer that stopped part-way left it held. */
  unlock?: boolean;
  /** This writer's lock id (default a random UUID); a load names its host and process in it (lib/loader/lease.ts). */
  lockId?: string;
  /** Take the lease over from this holder, known to be gone (store/ledger.ts LedgerLease.replacing). */
  replacingLock?: string;
  /** How long the lease holds (default DEFAULT_LEASE_MS): longer than the writer can take, so only a dead writer's lease runs out. */
  leaseMs?: number;
  onProgress?: (stage: LedgerStage, done: number, total: number) => void;
  /** Where the C2SP tlog-tiles log is written (a folder, the catalogue bucket); none: no tiles. */
  tiles?: TileStore;
  /** Keeps the log between batches of one process (the sequencer), so a batch reads only the leaves others published since. */
  cache?: LogCache;
}

/**
 * The log as the last batch of this process published it. A writer that stays alive between
 * batches (the sequencer) opens its next batch from it instead of reading every leaf again: if the
 * head is still the one it published, nothing is read; if another writer (a load) has appended
 * since, only those leaves are read, and the tree is checked against the head's signed checkpoint
 * as a log opened from every leaf is. A batch that fails leaves the cache empty.
 */
export class LogCache {
  private kept: { client: DynamoDBClient; table: string; origin: string; log: AppendOnlyLog } | null = null;

  /**
   * The kept log for this store (the client reaching it), table and origin, taken out of the
   * cache: a batch owns it until it publishes.
   */
  take(client: DynamoDBClient, table: string, origin: string): AppendOnlyLog | null {
    const kept = this.kept;
    this.kept = null;
    return kept && kept.client === client && kept.table === table && kept.origin === origin && !kept.log.hasUnpublished ? kept.log : null;
  }

  keep(client: DynamoDBClient, table: string, log: AppendOnlyLog): void {
    this.kept = { client, table, origin: log.origin, log };
  }
}

export interface LedgerPublication {
  origin: string;
  treeSize: number;
  appended: number;
  checkpoint: string;
  verifierKey: string;
}

/**
 * A writer's hold on the table's log (batch.ts runs it): take the lease, open the tree (from the
 * log this process kept, or from its right edge; checked against the published checkpoint either
 * way), append, store the new leaves, publish
 * the new head (conditional on the lease), and release the lease once the records are written.
 * Until the head is published, readers and the next writer see the previous tree.
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
    const lockId = options.lockId ?? randomUUID();
    const head = await acquireLedgerLock(options.client, options.table, lockId, {
      at: new Date().toISOString(),
      leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
      force: options.unlock,
      replacing: options.replacingLock,
    });
    try {
      if (head.origin && head.origin !== options.signer.name) {
        throw new Error(`the table's log is ${head.origin}, but the signing key is for ${options.signer.name}`);
      }
      const progress = (read: number, total: number) => options.onProgress?.('reading leaves', read, total);
      const kept = options.cache?.take(options.client, options.table, options.signer.name) ?? null;
      let log: AppendOnlyLog;
      if (kept && kept.published.size === head.treeSize && kept.published.checkpoint === head.checkpoint) {
        log = kept;
      } else if (kept && head.checkpoint && kept.published.size < head.treeSize) {
        kept.extendWithStored(await readLedgerLeaves(options.client, options.table, head.treeSize, progress, kept.published.size), head.checkpoint);
        log = kept;
      } else if (head.treeSize > 0) {
        // No kept log serves: open it from its right edge, the few hash tiles the table keeps
        // (O(log n) reads). A load run again does not need the leaves to recognise content already
        // logged: it reuses the evidence stored with each record (lib/loader/evidence.ts).
        const tiles = await readLedgerEdgeTiles(options.client, options.table, partialHashTiles(head.treeSize));
        log = AppendOnlyLog.fromRightEdge(options.signer, head.treeSize, (level) => tiles.get(level) ?? null, head.checkpoint);
      } else {
        log = new AppendOnlyLog(options.signer, { leaves: [], checkpoint: head.checkpoint });
      }
      // Read (and check) the tile log before anything is written: a store that disagrees stops the load here.
      const previous = options.tiles ? await previousBundleEntries(log, options.tiles) : [];
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

  /** Publishes the new checkpoint when anything was appended; the lease is kept until release(). */
  async publish(): Promise<LedgerPublication | null> {
    if (this.log.size === 0) return null;
    const appended = this.log.newLeaves.length;
    const checkpoint = await this.log.seal();
    if (appended > 0) {
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
      if (this.options.tiles) await writeLogResources(this.options.tiles, resources.filter((r) => r.path === 'checkpoint'), () => progress(resources.length));
      this.log.markPublished(checkpoint);
    }
    this.options.cache?.keep(this.options.client, this.options.table, this.log);
    return { origin: this.log.origin, treeSize: this.log.size, appended, checkpoint, verifierKey: this.options.signer.verifierKey };
  }

  /** Releases the lock without publishing; safe to call more than once. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await releaseLedgerLock(this.options.client, this.options.table, this.lockId);
  }
}

/**
 * The entries of the published size's partial bundle, read back from the tile store (a writer's
 * new bundles extend it). A store without it does not belong to the log.
 */
export async function previousBundleEntries(log: AppendOnlyLog, tiles: TileStore): Promise<Buffer[]> {
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
