import type { Head, StoredTimelineEntry } from '../../domain/kinds/kind';

/**
 * The record store: every record's timeline (docs/ledger.md#storage-ports). A record is a genesis
 * (its kind, its highest version, and the writers' bookkeeping) and its entries, each holding the
 * public entry, the view at its instant and the version in force with its evidence, so the view at
 * any instant is the newest entry at or before it.
 *
 * Guarantees every implementation keeps (test/integration/store-ports.test.ts holds the DynamoDB and
 * the in-memory ones to them):
 *  - readWindow is the read path's one round trip, whatever the history's length. It may miss a
 *    write made in the last second (eventually consistent), never returns part of an entry. It
 *    reads one head, the newest entry's version's: the window's entries of that version carry it,
 *    an older entry of another version throws when asked for its head (a version's head is stored
 *    once; what the read path shows of older entries is their entry and view).
 *  - A version has one head: a change giving two different heads for one version is refused.
 *  - readGeneses and readTimelines are the writers' reads: strongly consistent (they see every write
 *    that resolved before they were called), many references in one call; a record without a
 *    genesis (readGeneses) or without an entry (readTimelines) is absent from the answer.
 *  - write resolves once every item of every change is durable. Within a change its entries are
 *    durable before its genesis, so a genesis (a load's digest on it) vouches for its entries.
 *    Nothing is atomic across items: a writer stopped part-way left some written, and the writers
 *    make that harmless (the ledger journal; the load digest). Writing the same changes again gives
 *    the same record (idempotent).
 *  - Entries of one instant keep the order they were written in; a new entry is placed after every
 *    entry of the timeline it was derived from (`after`).
 *  - Every method may be called concurrently; the writers write one at a time (the ledger lease).
 *  - A store that does not answer throws StoreUnavailable (functions/store/errors.ts); the read path
 *    answers 503 and the writers stop where they are.
 */
export interface RecordStore extends RecordWindows {
  readGeneses(references: readonly string[]): Promise<Map<string, RecordGenesis>>;
  readTimelines(requests: readonly TimelineRequest[]): Promise<Map<string, StoredTimeline>>;
  write(changes: readonly RecordChange[], options?: RecordWriteOptions): Promise<void>;
  /** Marks the store as holding records of the current schema (the loader, after its first records: what /health reads). */
  markSchema(): Promise<void>;
  /** What a warm writer remembers of its records' newest items between batches (the sequencer's; absent: nothing is remembered). */
  tails?: WriterTails;
}

/**
 * A writer's memory of the records it read and wrote, good only while no other writer wrote in
 * between: the batch (functions/ledger-writer/batch.ts) says when it took the log's lease, when it
 * finished, and when what it remembers may be wrong.
 */
export interface WriterTails {
  /** The lease was taken, the `leasesTaken`-th on the log: everything is forgotten unless this writer's last batch held the one before. */
  leaseTaken(leasesTaken: number | undefined): void;
  /** The batch wrote everything it had to: what is remembered holds until the next lease. */
  batchDone(): void;
  /** Forget everything: a batch stopped part-way (a write failed, or anything after it), or records were written around this store (a journal finished). */
  forget(): void;
}

export interface RecordWriteOptions {
  /** Write requests in flight at once. */
  concurrency?: number;
  /**
   * Part of the changes only: their timelines (entries and heads), or afterwards their geneses, so
   * a writer can send the geneses beside other writes. Absent: both, the timelines first.
   */
  part?: 'timelines' | 'geneses';
}

/** The read path's part of the record store (what the read functions and the receivers bundle). */
export interface RecordWindows {
  readWindow<E = Record<string, unknown>, V = Record<string, unknown>, H = Record<string, unknown>>(reference: string, at: string, limit: number): Promise<RecordWindow<E, V, H>>;
}

/** One stored timeline entry with what was in force at its instant, as the read path reads it. */
export interface StoredEntry<Entry = Record<string, unknown>, View = Record<string, unknown>, Head = Record<string, unknown>> {
  at: string;
  entry: Entry;
  view: View;
  head: Head;
  /**
   * The head exactly as stored, when the store keeps it as text: equal texts are equal heads, so
   * what depends on the head alone can be remembered by it (functions/domain/evidence.ts).
   */
  headText?: string;
}

export interface RecordWindow<E = Record<string, unknown>, V = Record<string, unknown>, H = Record<string, unknown>> {
  /** False when the reference has nothing stored at all. */
  exists: boolean;
  /** The record's kind, null when it does not exist. */
  kind: string | null;
  /** Entries at or before the instant, newest first, at most `limit`. */
  entries: StoredEntry<E, V, H>[];
  /** True when older entries exist below the window. */
  more: boolean;
}

/** A record's genesis: what it is, and what its writers keep about it. */
export interface RecordGenesis {
  kind: string | null;
  /** The record's highest version (null on a record stored before it was kept). */
  highestVersion: number | null;
  /** Events set aside for it, tried again with its next events (docs/ingress.md#rules-of-order). */
  setAside: string[];
  /** The sequencer has changed it: a load keeps it as the events made it. */
  changedByEvents: boolean;
  /** The digest of what a load last wrote of it completely, or null. */
  loadDigest: string | null;
  /**
   * Opaque, from the store: what its genesis says of the record's newest stored items, when it
   * says. Given back in a TimelineRequest, it lets the store answer a read from an instant after
   * them without searching the record (the sequencer's common case: events newer than the record).
   */
  tail?: string;
}

/** Part of a record's timeline for a writer: from an instant on (with the entry in force then), or whole (`from` null). */
export interface TimelineRequest {
  reference: string;
  from: string | null;
  /** The record's genesis's `tail`, when it has one. */
  tail?: string;
}

export interface StoredTimeline {
  /** The entry just before `from` (what was in force then); null when reading whole, or when nothing precedes. */
  before: StoredTimelineEntry | null;
  /** The entries at or after `from` (every entry when whole), in store order. */
  entries: StoredTimelineEntry[];
  /** Opaque: where new entries derived from this part of the timeline go (RecordChange.after). */
  after: string;
  /** Opaque: the record's newest stored items as this read found them (RecordChange.tail), when the store keeps them. */
  tail?: string;
}

/** An entry as it must be stored: a stored one again under its id, or a new one (id null). */
export interface EntryToWrite {
  id: string | null;
  at: string;
  entry: unknown;
  view: unknown;
  head: Head | unknown;
  /** The identity of the event that made it, never shown: what makes integrating an event twice impossible. */
  eventKey?: string | null;
}

/** What a writer changes of one record. */
export interface RecordChange {
  reference: string;
  kind: string;
  /** The timeline the change was derived from (StoredTimeline.after); absent for a record written whole (a load): its entries in order. */
  after?: string;
  entries: EntryToWrite[];
  /**
   * Its genesis as it must now be stored, if it changed. A writer that changes a record's
   * timeline writes its genesis too: the store keeps there where the record's newest items are
   * (`tail`).
   */
  genesis?: GenesisToWrite;
  /**
   * The `tail` of the timeline the change was derived from (StoredTimeline.tail); for a record
   * written whole over entries stored before (a load run again), that of its whole read, since
   * entries are never removed and one stored before may stay the newest.
   */
  tail?: string;
}

export interface GenesisToWrite {
  highestVersion: number;
  /** The sequencer changed it, and these events wait for another try. */
  events?: { setAside: readonly string[] };
  /** A load wrote it completely: the digest of what it wrote. */
  loadDigest?: string;
}

/** A record written whole (a load): its kind and its entries in order, each with what was in force at its instant. */
export interface RecordToStore {
  reference: string;
  kind: string;
  entries: { at: string; entry: unknown; view: unknown; head: unknown }[];
}
