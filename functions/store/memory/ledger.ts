import { LeaseLostError, LedgerLockedError } from '../errors';
import { checkedChunksName, tileName, type JournalChunks, type JournaledPart, type JournaledWrites, type LeafStore, type LedgerHead, type LedgerJournal, type LedgerLock, type PublishedLedger } from '../ports/ledger';
import type { PendingStore } from '../ports/pending';
import type { RecordStore } from '../ports/records';
import { withCheckpoint, withPlacedEvidence, type PlacedEvidence } from '../checkpoint-to-come';

export interface MemoryLedger {
  lock: LedgerLock;
  leaves: LeafStore;
  journal: LedgerJournal;
  published: PublishedLedger;
  /** Every checkpoint published, by tree size. */
  checkpoints: Map<number, string>;
  /** The chunks parts stored themselves (JournalChunks.storeChunks), by name: a part writer's journal chunks in this memory are memoryJournalChunks(stores, storedChunks). */
  storedChunks: StoredChunksMemory;
}

/** Chunks parts stored, by name, as the table keeps them under "J#" (layout.ts). */
export type StoredChunksMemory = Map<string, Uint8Array[]>;

/**
 * The log's head, hash tiles (whose level 0 holds the leaves) and journal in this process's memory: the same guarantees as
 * the table (ports/ledger.ts). The head changes synchronously, so acquire is a compare-and-swap;
 * the journal is finished through the record and pending stores it was made with.
 */
export function memoryLedger(stores: { records: RecordStore; pending: PendingStore }): MemoryLedger {
  let stored: LedgerHead | null = null;
  const tiles = new Map<string, Uint8Array>();
  const checkpoints = new Map<number, string>();
  let journal: { treeSize: number; done: boolean; writes: JournaledWrites | null; parts: JournaledPart[] } | null = null;
  const read = async () => structuredClone(stored);

  const lock: LedgerLock = {
    read,
    async acquire(lockId, lease) {
      const held = stored?.lock;
      const free = !held || (held.until !== null && held.until < lease.at) || (lease.replacing !== undefined && held.id === lease.replacing);
      if (!free && !lease.force) throw new LedgerLockedError(held!.since, held!.until, held!.id);
      const until = new Date(Date.parse(lease.at) + lease.leaseMs).toISOString();
      const before: LedgerHead = stored ?? { origin: null, treeSize: 0, checkpoint: null, updatedAt: null, lock: null };
      stored = { ...before, lock: { id: lockId, since: lease.at, until }, leasesTaken: (before.leasesTaken ?? 0) + 1 };
      return structuredClone(stored);
    },
    async recordCheckpoint(head) {
      checkpoints.set(head.treeSize, head.checkpoint);
    },
    async publish(lockId, head) {
      if (stored?.lock?.id !== lockId) throw new LeaseLostError(lockId);
      stored = { ...stored, origin: head.origin, treeSize: head.treeSize, checkpoint: head.checkpoint, updatedAt: head.at };
    },
    async release(lockId) {
      if (stored?.lock?.id === lockId) stored = { ...stored, lock: null };
    },
  };

  const leafStore: LeafStore = {
    async forEachLeaf(treeSize, onLeaf, onProgress, from = 0) {
      // As in the table: the leaves are the hashes of the level-0 tiles.
      for (let i = from; i < treeSize; i++) {
        const tile = tiles.get(tileName({ level: 0, index: Math.floor(i / 256) }));
        const at = (i % 256) * 32;
        if (!tile || tile.length < at + 32) throw new Error(`the ledger is missing leaf ${i} (found nothing)`);
        onLeaf(Buffer.from(tile.subarray(at, at + 32)), i);
      }
      if (treeSize > from) onProgress?.(treeSize, treeSize);
    },
    async readEdgeTiles(wanted) {
      return new Map(wanted.flatMap((t) => (tiles.has(tileName(t)) ? [[t.level, new Uint8Array(tiles.get(tileName(t))!)] as const] : [])));
    },
    async write(newLeaves, grown, onProgress) {
      for (const tile of grown) tiles.set(tileName(tile), new Uint8Array(tile.hashes));
      onProgress?.(newLeaves.length + grown.length, newLeaves.length + grown.length);
    },
  };

  const storedChunks: StoredChunksMemory = new Map();
  const chunks = memoryJournalChunks(stores, storedChunks);
  const journalStore: LedgerJournal = {
    ...chunks,
    async write(treeSize, writes, parts: readonly JournaledPart[] = []) {
      journal = { treeSize, done: false, writes: structuredClone(writes), parts: parts.map((p) => ({ start: p.start, leaves: p.leaves, chunks: p.chunks.map((c) => new Uint8Array(c)), stored: p.stored })) };
    },
    async finish(publishedSize, checkpoint, placer) {
      if (!journal || journal.done || journal.treeSize !== publishedSize || !journal.writes) return false;
      const { writes, parts } = journal;
      if (checkpoint) withCheckpoint(writes.records, checkpoint);
      await writeAll(stores, writes);
      if (parts.length > 0) {
        if (!placer) throw new Error('the journal holds parts whose new versions wait for their place in the log, and no placer was given to finish it');
        const placedAt = await placer(Math.min(...parts.map((p) => p.start)), Math.max(...parts.map((p) => p.start + p.leaves)));
        for (const part of parts) await chunks.writeChunks(part.stored ? await chunks.readChunks(part.stored) : part.chunks, (ordinal, version) => placedAt(part.start + ordinal, version));
      }
      await journalStore.markDone(publishedSize);
      return true;
    },
    async markDone(treeSize) {
      // Only the journal of this size (as the table's conditional update).
      if (journal?.treeSize !== treeSize) return;
      for (const part of journal.parts) if (part.stored) storedChunks.delete(part.stored.name);
      journal = { treeSize, done: true, writes: null, parts: [] };
    },
    unfinished: async () => journal?.done === false,
  };

  const published: PublishedLedger = {
    async head() {
      const head = await read();
      return head && head.checkpoint ? head : null;
    },
    async headWithTiles(wanted) {
      return { head: await read(), tiles: new Map(wanted.flatMap((t) => (tiles.has(tileName(t)) ? [[tileName(t), new Uint8Array(tiles.get(tileName(t))!)] as const] : []))) };
    },
  };

  return { lock, leaves: leafStore, journal: journalStore, published, checkpoints, storedChunks };
}

/** What a batch's writes do, in the order the batch writes them: the records (heads, entries, geneses), the schema mark, the settled events. */
async function writeAll(stores: { records: RecordStore; pending: PendingStore }, writes: JournaledWrites): Promise<void> {
  await stores.records.write(writes.records);
  if (writes.schema) await stores.records.markSchema();
  await stores.pending.settle(writes.settlements);
}

/** A part's writes as one chunk of JSON, and written through the record and pending stores given (as the table's, journal.ts); chunks a part stores are kept in `stored`. */
export function memoryJournalChunks(stores: { records: RecordStore; pending: PendingStore }, stored: StoredChunksMemory = new Map()): JournalChunks {
  return {
    async storeChunks(name, chunks) {
      stored.set(checkedChunksName(name), chunks.map((c) => new Uint8Array(c)));
      return { name, count: chunks.length };
    },
    async readChunks({ name, count }) {
      const chunks = stored.get(name);
      if (!chunks || chunks.length < count) throw new Error(`the part's chunks ${name} are missing`);
      return chunks.slice(0, count).map((c) => new Uint8Array(c));
    },
    chunksOf: (writes) => [new TextEncoder().encode(JSON.stringify(writes))],
    async writeChunks(chunks, placed: PlacedEvidence) {
      for (const chunk of chunks) {
        const writes = JSON.parse(new TextDecoder().decode(chunk)) as JournaledWrites;
        withPlacedEvidence(writes.records, placed);
        await writeAll(stores, writes);
      }
    },
  };
}
