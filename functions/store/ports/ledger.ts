import type { Settlement } from './pending';
import type { RecordChange } from './records';
import type { PlacedEvidence } from '../checkpoint-to-come';

/**
 * Where the integrity log keeps what is not its public tile log (docs/ledger.md#storage-ports):
 * its head (size, signed checkpoint, the single writer's lease), the leaves and the hash tiles the
 * writers open it from, and the journal of a batch's writes. The tile log itself is a TileStore
 * (functions/ledger-writer/tile-store.ts), the key a CheckpointSigner (functions/ledger-writer/signer.ts).
 *
 * Guarantees every implementation keeps (test/integration/store-ports.test.ts):
 *  - The head's calls are serializable and strongly consistent, across processes and restarts:
 *    acquire is a compare-and-swap (no lease held, the one held ran out, or the one named in
 *    `replacing`), so two writers never hold the lease at once; publish succeeds only while the
 *    writer still holds it; a published head is durable when publish resolves.
 *  - The head's size is the truth: leaves and tiles beyond it belong to no published tree, and the
 *    next writer overwrites them.
 *  - The journal is durable when write resolves; finish writes everything an unfinished journal
 *    holds (through the record and pending stores it was written for) before it marks it done.
 *  - The read path's calls (PublishedLedger) are one round trip each and may lag a publish by a second.
 *  - A store that does not answer throws (StoreUnavailable on the read path).
 */
export interface LedgerLock {
  /** The head as it stands (strongly consistent); null when the store holds none. */
  read(): Promise<LedgerHead | null>;
  /** Takes the single-writer lease and returns the head; throws LedgerLockedError while another holds it. */
  acquire(lockId: string, lease: LedgerLease): Promise<LedgerHead>;
  /** Records a checkpoint in the history (by tree size); a writer records it before it publishes the head for it. */
  recordCheckpoint(head: PublishedHead): Promise<void>;
  /** Publishes the new head, conditional on still holding the lease. */
  publish(lockId: string, head: PublishedHead): Promise<void>;
  /** Releases the lease without publishing; a lease taken over by another writer is left alone. */
  release(lockId: string): Promise<void>;
}

/** The leaves and hash tiles a writer opens and extends the log from. */
export interface LeafStore {
  /** Passes the hashes of leaves from..treeSize-1 to `onLeaf`, in order, a page at a time (bounded memory). Throws when one is missing. */
  forEachLeaf(treeSize: number, onLeaf: (leaf: Buffer, index: number) => void, onProgress?: (read: number, total: number) => void, from?: number): Promise<void>;
  /** The hash tiles named (the partial tile of each level a log is opened from), by level; a tile not stored is absent. */
  readEdgeTiles(tiles: ReadonlyArray<{ level: number; index: number }>): Promise<Map<number, Uint8Array>>;
  /** Stores new leaves and the hash tiles they grew (a partial tile grows in place). */
  write(leaves: readonly LeafToStore[], tiles: readonly HashTileToStore[], onProgress?: (written: number, total: number) => void): Promise<void>;
}

/**
 * A part of a batch's writes as journal chunks (functions/ledger-writer/parts.ts): made where the
 * part is planned, kept in the batch's journal meanwhile, and written where the part is written.
 */
export interface JournalChunks {
  /** The chunks `writes` are journaled as (no I/O): what a part's planner hands to the batch. */
  chunksOf(writes: JournaledWrites): Uint8Array[];
  /**
   * Writes what `chunks` hold, as the record and pending stores write it (the new versions' heads,
   * then the entries, then the geneses and the settled events), each new version's evidence
   * `placed(ordinal, version)` where it was to come (checkpoint-to-come.ts).
   */
  writeChunks(chunks: readonly Uint8Array[], placed: PlacedEvidence): Promise<void>;
  /**
   * Keeps a part's chunks in the store under `name` (given by the sequencer, a new one for every
   * part of every batch: STORED_CHUNKS_NAME), where the batch's journal and the part's writer find
   * them (readChunks), so they never travel through the sequencer. Kept until the batch that
   * journals them is done, or at most as long as a stopped batch's chunks.
   */
  storeChunks(name: string, chunks: readonly Uint8Array[]): Promise<StoredChunks>;
  /** The chunks stored under `stored` (strongly consistent), in order; throws when one is missing. */
  readChunks(stored: StoredChunks): Promise<Uint8Array[]>;
}

/** Chunks a part stored itself (JournalChunks.storeChunks): their name and how many. */
export interface StoredChunks {
  name: string;
  count: number;
}

/** What names stored chunks: letters, digits and '-', at most 64 (the sequencer's batch id and the part's number). */
export const STORED_CHUNKS_NAME = /^[0-9A-Za-z-]{1,64}$/;
/** `name` when it names stored chunks (STORED_CHUNKS_NAME); a TypeError saying so otherwise (every store refuses it before storing). */
export function checkedChunksName(name: string): string {
  if (!STORED_CHUNKS_NAME.test(name)) throw new TypeError(`stored chunks are named with letters, digits and '-' (at most 64), not ${JSON.stringify(name)}`);
  return name;
}

/**
 * A part of a batch planned apart, as its journal keeps it: where its new versions' leaves start,
 * how many, and its chunks: handed to the journal (`chunks`), or stored by the part itself
 * (`stored`), which the journal then names.
 */
export interface JournaledPart {
  start: number;
  leaves: number;
  chunks: readonly Uint8Array[];
  stored?: StoredChunks;
}

/**
 * How a writer finishing a journal gives the evidence of the leaves `from` up to `to` of the log it
 * published (the parts' new versions): read back from the leaves the batch stored.
 */
export type LeafPlacer = (from: number, to: number) => Promise<(leafIndex: number, version: number) => unknown>;

/** A batch's writes, journaled before its head is published (functions/ledger-writer/batch.ts). */
export interface LedgerJournal extends JournalChunks {
  /** Stores what a batch publishing `treeSize` writes after its head: every record change and settlement, its own and its parts'. */
  write(treeSize: number, writes: JournaledWrites, parts?: readonly JournaledPart[]): Promise<void>;
  /**
   * Writes what a batch that published `publishedSize` with `checkpoint` left unwritten (its new
   * versions' evidence given that checkpoint where it names CHECKPOINT_TO_COME, and its parts'
   * placed by `placer`), then marks its journal done; nothing when none waits. True when it finished one.
   */
  finish(publishedSize: number, checkpoint: string | null, placer?: LeafPlacer): Promise<boolean>;
  /** Marks the journal of `treeSize` done; a journal of another size (a newer batch's) is left as it is. */
  markDone(treeSize: number): Promise<void>;
  /** True when a journal waits to be finished (the sequencer runs a batch for it even when no event waits). */
  unfinished(): Promise<boolean>;
}

/** The read path's view of the log: one round trip each. */
export interface PublishedLedger {
  /** The published head; null when nothing was ever published. */
  head(): Promise<LedgerHead | null>;
  /** The published head and the hash tiles named (by `level/index`), read together (the keys follow from the sizes asked). */
  headWithTiles(tiles: ReadonlyArray<{ level: number; index: number }>): Promise<{ head: LedgerHead | null; tiles: Map<string, Uint8Array> }>;
}

export interface LedgerHead {
  origin: string | null;
  treeSize: number;
  checkpoint: string | null;
  updatedAt: string | null;
  lock: { id: string; since: string; until: string | null } | null;
  /** How many times the lease was taken on this log, the one held included (absent on a head from before they were counted). */
  leasesTaken?: number;
  /** Where the log's items are (layout.ts; the first log's when absent). */
  keys?: string;
  /** Where its tile log is, below the log prefix ('' for the first log, `logs/<id>/` for a successor). */
  tilesDir?: string;
  /** Set once the log was retired by a key change: the log that continues it. */
  successor?: { keys: string; origin: string | null };
  /** The read path's head: the logs this one succeeds, first to last (docs/ledger.md#when-the-key-must-change). */
  predecessors?: LedgerHead[];
}

export interface PublishedHead {
  origin: string;
  treeSize: number;
  checkpoint: string;
  at: string;
}

export interface LedgerLease {
  /** When the lease is taken (UTC ISO-8601 with milliseconds). */
  at: string;
  /** How long it holds: a writer that dies holding it blocks others this long at most. */
  leaseMs: number;
  /** Take it even if another writer holds it (an operator's --unlock-ledger). */
  force?: boolean;
  /** Take it over from exactly this holder, known to be gone (a killed load on this machine): conditional on that lease still being the one held. */
  replacing?: string;
}

export interface LeafToStore {
  index: number;
  leafHash: Uint8Array;
  reference: string;
  version: number;
}

export interface HashTileToStore {
  level: number;
  index: number;
  /** The tile's hashes, concatenated (width · 32 bytes). */
  hashes: Uint8Array;
}

/** What a batch writes once its head is published, in order: the record changes, then the settled events. */
export interface JournaledWrites {
  records: RecordChange[];
  settlements: Settlement[];
  /** Mark the schema after the records. The loader never sets it: it marks the table once its whole load is written (the table reads as loaded only then). */
  schema?: boolean;
}

/** The tile key of a hash tile in PublishedLedger.headWithTiles. */
export const tileName = (tile: { level: number; index: number }): string => `${tile.level}/${tile.index}`;

/** What a writer holds of the log besides its tile log and its key: its head and lease, its leaves, its journal. */
export interface LedgerStores {
  lock: LedgerLock;
  leaves: LeafStore;
  journal: LedgerJournal;
}
