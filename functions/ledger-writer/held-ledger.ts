import { randomUUID } from 'node:crypto';
import type { LedgerHead, LedgerStores } from '../store/ports/ledger';
import { decodeEntryBundle, entriesStart, tilePath, TILE_WIDTH } from '#verify/node/tlog-tiles';
import { checkpointResources, partialHashTiles, type LogResource } from '../domain/ledger/tiles';
import { AppendOnlyLog, LedgerIntegrityError } from './log';
import { tileStoreIn, writeLogResources, type TileStore } from './tile-store';
import type { CheckpointSigner } from './signer';

/** A load's lease: a long load renews nothing, so this bounds how long one may write. */
export const DEFAULT_LEASE_MS = 30 * 60_000;

export type LedgerStage = 'reading leaves' | 'writing leaves' | 'writing tiles';

export interface LedgerWriterOptions {
  /** The log's head and lease, its leaves and its journal (functions/store/ports/ledger.ts). */
  ledger: LedgerStores;
  signer: CheckpointSigner;
  /** Take the lease even if a writer that stopped part-way left it held. */
  unlock?: boolean;
  /** This writer's lock id (default a random UUID); a load names its host and process in it (lib/loader/lease.ts). */
  lockId?: string;
  /** Take the lease over from this holder, known to be gone (LedgerLease.replacing). */
  replacingLock?: string;
  /** How long the lease holds (default DEFAULT_LEASE_MS): longer than the writer can take, so only a dead writer's lease runs out. */
  leaseMs?: number;
  onProgress?: (stage: LedgerStage, done: number, total: number) => void;
  /** Where the C2SP tlog-tiles log is written (a folder, the catalogue bucket); none: no tiles. */
  tiles?: TileStore;
  /** Keeps the log between batches of one process (the sequencer), so a batch reads only the leaves others published since. */
  cache?: LogCache;
  /**
   * Who stores a batch's new tiles and bundles in the tile log, before its head is published
   * (`tilesDir`: the log's folder below the tile log's prefix, '' for the first log): by default
   * this writer, through `tiles`; a batch in parts hands them to its part writers (sequencer.ts).
   */
  storeTiles?: (resources: readonly LogResource[], tilesDir: string) => Promise<void>;
}

/**
 * The log as the last batch of this process published it. A writer that stays alive between
 * batches (the sequencer) opens its next batch from it instead of reading every leaf again: if the
 * head is still the one it published, nothing is read; if another writer (a load) has appended
 * since, only those leaves are read, and the tree is checked against the head's signed checkpoint
 * as a log opened from every leaf is. A batch that fails leaves the cache empty.
 */
export class LogCache {
  private kept: { leaves: LedgerStores['leaves']; origin: string; log: AppendOnlyLog } | null = null;
  /** The lease (its count on the head) of the batch that kept the log, once that batch finished whole (batch.ts). */
  private finishedLease: number | undefined;

  /** The kept log for this store of leaves and origin, taken out of the cache: a batch owns it until it publishes. */
  take(leaves: LedgerStores['leaves'], origin: string): AppendOnlyLog | null {
    const kept = this.keptFor(leaves, origin);
    this.kept = null;
    return kept;
  }

  keep(leaves: LedgerStores['leaves'], log: AppendOnlyLog): void {
    this.kept = { leaves, origin: log.origin, log };
  }

  /** The batch that kept the log finished whole, holding the `leasesTaken`-th lease. */
  finished(leasesTaken: number | undefined): void {
    this.finishedLease = leasesTaken;
  }

  /**
   * When the last batch of this process kept the log and finished whole: the size it published
   * and the lease it held (forgotten here: a batch that opens and fails leaves nothing to go on).
   */
  continuing(leaves: LedgerStores['leaves'], origin: string): { size: number; leasesTaken: number } | null {
    const leasesTaken = this.finishedLease;
    this.finishedLease = undefined;
    const kept = this.keptFor(leaves, origin);
    return leasesTaken !== undefined && kept ? { size: kept.published.size, leasesTaken } : null;
  }

  /** The kept log, when it is of this store of leaves and origin and holds nothing unpublished. */
  private keptFor(leaves: LedgerStores['leaves'], origin: string): AppendOnlyLog | null {
    const kept = this.kept;
    return kept && kept.leaves === leaves && kept.origin === origin && !kept.log.hasUnpublished ? kept.log : null;
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
 * A writer's hold on the log (batch.ts runs it): take the lease, open the tree (from the log this
 * process kept, or from its right edge; checked against the published checkpoint either way),
 * append, store the new leaves, publish the new head (conditional on the lease), and release the
 * lease once the records are written. Until the head is published, readers and the next writer see
 * the previous tree.
 */
export class HeldLedger {
  private released = false;
  /** The tile log's new tiles and bundles of this batch's growth (writeNewLeaves). */
  private resources: LogResource[] = [];

  private constructor(
    private readonly options: LedgerWriterOptions,
    private readonly lockId: string,
    readonly log: AppendOnlyLog,
    /** The entries of the published size's partial bundle, read back from the tile store when the writer opened. */
    private readonly previous: Buffer[],
    /** The log's folder below the tile log's prefix ('' for the first log). */
    private readonly tilesDir: string,
  ) {}

  /**
   * Takes the lease, then reads at once everything the writer opens from: the log (the kept one,
   * the leaves appended since, or the right edge's hash tiles), the tile log's last partial bundle,
   * and whatever `alongside` reads (the batch's own first reads: they need the lease, not the log);
   * `onLease` hears of the lease before anything read is used.
   *
   * A writer whose last batch finished whole (the sequencer, warm) sends the tile log's read and
   * `alongside`'s together with taking the lease: when the lease it is given is the one right after
   * its own last (the head counts them: `leasesTaken`) on the log it published, no other writer held
   * it in between, so nothing those reads see has changed since, and the batch saves a round trip.
   * Otherwise what was read early is dropped and read again under the lease.
   */
  static async open<T = undefined>(given: LedgerWriterOptions, alongside?: () => Promise<T>, onLease?: (lease: LedgerHead) => void): Promise<{ ledger: HeldLedger; alongside: T }> {
    const { lock } = given.ledger;
    const lockId = given.lockId ?? randomUUID();
    const last = given.cache?.continuing(given.ledger.leaves, given.signer.name);
    const ahead = last ? { ...last, reads: alongside?.(), previous: given.tiles ? previousBundleEntriesAt(last.size, given.tiles) : undefined } : null;
    // A read ahead that is dropped (another writer held the lease in between) fails nothing; one that is used fails the batch as under the lease.
    void ahead?.reads?.catch(() => undefined);
    void ahead?.previous?.catch(() => undefined);
    const head = await lock.acquire(lockId, { at: new Date().toISOString(), leaseMs: given.leaseMs ?? DEFAULT_LEASE_MS, force: given.unlock, replacing: given.replacingLock });
    // The log the lease is of keeps its tile log where its head says (a successor's below logs/<id>/).
    const options = given.tiles && head.tilesDir ? { ...given, tiles: tileStoreIn(given.tiles, head.tilesDir) } : given;
    const continues = ahead !== null && head.leasesTaken === ahead.leasesTaken + 1 && head.treeSize === ahead.size && !head.tilesDir;
    try {
      if (head.origin && head.origin !== options.signer.name) {
        throw new Error(`the table's log is ${head.origin}, but the signing key is for ${options.signer.name}`);
      }
      onLease?.(head);
      const [log, previous, early] = await Promise.all([
        openLog(options, head),
        options.tiles ? ((continues ? ahead.previous : undefined) ?? previousBundleEntriesAt(head.treeSize, options.tiles)) : [],
        alongside ? ((continues ? ahead.reads : undefined) ?? alongside()) : (undefined as T),
      ]);
      // Check the tile log against the table before anything is written: a store that disagrees stops the writer here.
      if (options.tiles) log.checkPreviousEntries(previous);
      return { ledger: new HeldLedger(options, lockId, log, previous, head.tilesDir ?? ''), alongside: early };
    } catch (error) {
      await lock.release(lockId);
      throw error;
    }
  }

  /**
   * Stores, before the head is published, what it will refer to: the hash tiles the new leaves grew
   * in the table (the leaves are their level-0 hashes; consistency proofs are read from them) and
   * the tile log's new tiles and bundles (new paths, or partial ones at their own .p/<W> path),
   * sent together. Nothing here is reachable until the head names the new size.
   */
  async writeNewLeaves(): Promise<void> {
    const appended = this.log.newLeaves.length > 0;
    if (appended && this.options.tiles) this.resources = this.log.growthResources(this.previous);
    const { tiles } = this.options;
    // The key signs the new checkpoint while the leaves, tiles and bundles are stored: none of them
    // depends on the signature (the checkpoints are written with the head: publish).
    await Promise.all([
      appended ? this.log.seal() : null,
      appended ? this.options.ledger.leaves.write(this.log.newLeaves, this.log.grownHashTiles, (written, total) => this.options.onProgress?.('writing leaves', written, total)) : null,
      tiles && this.resources.length > 0
        ? this.options.storeTiles
          ? this.options.storeTiles(this.resources, this.tilesDir)
          : writeLogResources(tiles, this.resources, (done) => this.options.onProgress?.('writing tiles', done, this.resources.length))
        : null,
    ]);
  }

  /**
   * Publishes the new checkpoint when anything was appended (after writeNewLeaves); the lease is
   * kept until release(). The head first (conditional on the lease), then at once: the tile log's
   * `checkpoint`, the checkpoint's history item and `afterHead` (the batch's record writes). A
   * writer stopped before those finishes them on its next batch (republishCheckpoint).
   */
  async publish(afterHead: () => Promise<void> = async () => undefined): Promise<LedgerPublication | null> {
    if (this.log.size === 0) {
      await afterHead();
      return null;
    }
    const appended = this.log.newLeaves.length;
    const checkpoint = await this.log.seal();
    if (appended > 0) {
      const head = { origin: this.log.origin, treeSize: this.log.size, checkpoint, at: new Date().toISOString() };
      await this.options.ledger.lock.publish(this.lockId, head);
      const { tiles } = this.options;
      await Promise.all([
        // The checkpoint's history item and `checkpoint` at once: neither names the other.
        ...(tiles ? checkpointResources(this.log.size, checkpoint).map((r) => writeLogResources(tiles, [r])) : []),
        this.options.ledger.lock.recordCheckpoint(head),
        afterHead(),
      ]);
      this.log.markPublished(checkpoint);
    } else {
      await afterHead();
    }
    // Only the log's right edge is kept for the next batch: memory stays bounded however long the log.
    this.options.cache?.keep(this.options.ledger.leaves, this.log.rightEdge());
    return { origin: this.log.origin, treeSize: this.log.size, appended, checkpoint, verifierKey: this.options.signer.verifierKey };
  }

  /**
   * Makes the tile log's `checkpoint` and `checkpoint/<size>` the published head's again, when a
   * writer stopped after publishing the head but before writing them (the writes that follow the
   * head). A checkpoint that begins with the head's note is kept: witnesses' cosignatures follow the note.
   */
  async republishCheckpoint(): Promise<void> {
    const { tiles } = this.options;
    const note = this.log.published.checkpoint;
    if (!note) return;
    // Its history item too (written beside the tile log's checkpoint, so it may be what was stopped).
    const head = await this.options.ledger.lock.read();
    if (head?.origin && head.updatedAt) await this.options.ledger.lock.recordCheckpoint({ origin: head.origin, treeSize: this.log.published.size, checkpoint: note, at: head.updatedAt });
    if (!tiles) return;
    // The tile log's checkpoints, each unless it already begins with the note (a witness may have cosigned it).
    await Promise.all(
      checkpointResources(this.log.published.size, note).map(async (r) => {
        if ((await tiles.read(r.path))?.toString('utf8').startsWith(note)) return;
        await writeLogResources(tiles, [r]);
      }),
    );
  }

  /** Releases the lease without publishing; safe to call more than once. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.options.ledger.lock.release(this.lockId);
  }
}

/**
 * The log to extend, as the head says it stands: the one this process kept (extended by the leaves
 * another writer appended since, checked against the signed checkpoint), or its right edge (the
 * few hash tiles the store keeps: O(log n) reads). A load run again does not need the leaves to
 * recognise content already logged: it reuses the evidence stored with each record (lib/loader/evidence.ts).
 */
async function openLog(options: LedgerWriterOptions, head: { treeSize: number; checkpoint: string | null }): Promise<AppendOnlyLog> {
  const { leaves } = options.ledger;
  const progress = (read: number, total: number) => options.onProgress?.('reading leaves', read, total);
  const kept = options.cache?.take(leaves, options.signer.name) ?? null;
  if (kept && kept.published.size === head.treeSize && kept.published.checkpoint === head.checkpoint) return kept;
  if (kept && head.checkpoint && kept.published.size < head.treeSize) {
    const appended: Buffer[] = [];
    await leaves.forEachLeaf(head.treeSize, (leaf) => void appended.push(leaf), progress, kept.published.size);
    kept.extendWithStored(appended, head.checkpoint);
    return kept;
  }
  if (head.treeSize > 0) {
    const tiles = await leaves.readEdgeTiles(partialHashTiles(head.treeSize));
    return AppendOnlyLog.fromRightEdge(options.signer, head.treeSize, (level) => tiles.get(level) ?? null, head.checkpoint);
  }
  return new AppendOnlyLog(options.signer, { leaves: [], checkpoint: head.checkpoint });
}

/**
 * The entries of the partial bundle of a log of `size` entries, read back from the tile store (a
 * writer's new bundles extend it); none when `size` ends a bundle. A store without it does not
 * belong to the log.
 */
async function previousBundleEntriesAt(size: number, tiles: TileStore): Promise<Buffer[]> {
  const start = entriesStart(size);
  if (size === start) return [];
  const bundle = { level: 'entries' as const, index: start / TILE_WIDTH, width: size - start };
  const bytes = await tiles.read(tilePath(bundle));
  if (!bytes) {
    throw new LedgerIntegrityError(
      `the tile log at ${tiles.location} has no ${tilePath(bundle)}: tiles are written from a log's first entry on, so this store does not belong to the table's log`,
    );
  }
  return decodeEntryBundle(bytes);
}

/** The entries of the published size's partial bundle of `log` (previousBundleEntriesAt its published size). */
export const previousBundleEntries = (log: AppendOnlyLog, tiles: TileStore): Promise<Buffer[]> => previousBundleEntriesAt(log.published.size, tiles);
