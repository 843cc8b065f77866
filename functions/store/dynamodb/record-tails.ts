import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ENTRY_SK_PREFIX, HEAD_SK_PREFIX } from '../layout';
import type { WriterTails } from '../ports/records';

type Item = Record<string, AttributeValue>;

/**
 * Partitions remembered at most (a record is two: its entries' and its heads'): about 2 KB of
 * items each, some tens of MB in all, a small part of the sequencer's 1,769 MB.
 */
export const MAX_REMEMBERED_PARTITIONS = 20_000;

/**
 * What a warm writer knows of the records it read and wrote: in each of their partitions, the
 * newest item of the prefix it reads from an instant (a record's newest entry, `T#`; its newest
 * version's head, `V#`), or that there is none. The writer reading from an instant newer than that
 * item needs no Query: the answer is nothing at or after the instant and that item before it
 * (records.ts, `fromBoundary`).
 *
 * It holds only while this writer is the only one that wrote: every writer of records (a
 * sequencer, a load, a migration, a key change) holds the log's lease, each taking of it counted on
 * the log's head (`leasesTaken`), so a lease that is not the one after this writer's last means
 * another writer may have written, and everything is forgotten. So is everything when a batch fails
 * part-way (what it wrote is then unknown), when a journal is finished (its writes go around this
 * store), and the least recently used partitions past MAX_REMEMBERED_PARTITIONS.
 *
 * A writer that keeps no memory still reads through one, made for a single read of many records
 * (records.ts readTimelines): what it read of their newest items by key, and nothing longer.
 */
export class RecordTails implements WriterTails {
  private readonly newest = new Map<string, Item | null>();
  /** The lease this writer holds now, and the one its last whole batch held. */
  private held: number | undefined;
  private lastDone: number | undefined;

  constructor(private readonly capacity = MAX_REMEMBERED_PARTITIONS) {}

  leaseTaken(leasesTaken: number | undefined): void {
    const continues = leasesTaken !== undefined && this.lastDone !== undefined && leasesTaken === this.lastDone + 1;
    if (!continues) this.newest.clear();
    this.held = leasesTaken;
    this.lastDone = undefined;
  }

  batchDone(): void {
    this.lastDone = this.held;
  }

  forget(): void {
    this.newest.clear();
    this.held = undefined;
    this.lastDone = undefined;
  }

  /** Partitions remembered now. */
  get size(): number {
    return this.newest.size;
  }

  /**
   * The newest item of `prefix` in `pk` when every item of it is older than `boundary` (undefined
   * when not known so: not remembered, or an item at or after the boundary).
   */
  before(pk: string, prefix: string, boundary: string): { prior: Item | null } | undefined {
    const key = keyOf(pk, prefix);
    if (!this.newest.has(key)) return undefined;
    const item = this.newest.get(key)!;
    if (item && item.sk!.S! >= boundary) return undefined;
    this.remember(key, item);
    return { prior: item };
  }

  /** The newest item of `prefix` in `pk`, as a strongly consistent read under the lease just found it (null: none). */
  learned(pk: string, prefix: string, newest: Item | null): void {
    this.remember(keyOf(pk, prefix), newest);
  }

  /** Items this writer has just written (durably): each becomes its partition's newest when it is newer than the one remembered. A write that failed is the batch's to forget (forget). */
  wrote(items: readonly Item[]): void {
    for (const item of items) {
      const sk = item.sk!.S!;
      const prefix = sk.startsWith(ENTRY_SK_PREFIX) ? ENTRY_SK_PREFIX : sk.startsWith(HEAD_SK_PREFIX) ? HEAD_SK_PREFIX : null;
      if (!prefix) continue;
      const key = keyOf(item.pk!.S!, prefix);
      // Not remembered: newer items may be stored, so the newest is still unknown.
      if (!this.newest.has(key)) continue;
      const known = this.newest.get(key)!;
      if (!known || sk >= known.sk!.S!) this.remember(key, item);
    }
  }

  private remember(key: string, item: Item | null): void {
    this.newest.delete(key);
    this.newest.set(key, item);
    if (this.newest.size > this.capacity) this.newest.delete(this.newest.keys().next().value!);
  }
}

const keyOf = (pk: string, prefix: string): string => `${prefix}${pk}`;
