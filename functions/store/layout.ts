import { createHash } from 'node:crypto';

/**
 * The table layout, known only to functions/store/.
 *
 * Two partitions per record: its entries, pk = "R#" + reference, and its versions' heads,
 * pk = "R#" + reference + "#V" ('#' is never in a reference: REFERENCE_PATTERN).
 *   pk = "R#" + reference
 *     sk = "#"                    genesis item: the record exists (kind); sorts before every entry
 *     sk = "T#" + at + "#" + seq  one lean item per timeline entry, `at` as UTC ISO-8601 with
 *                                 milliseconds, so sort order is time order: the public entry, the
 *                                 view at that instant and the number of the version in force; with
 *                                 the identity of the event that made it (`k`), unless the head
 *                                 item at that position carries it
 *   pk = "R#" + reference + "#V"
 *     sk = "V#" + at + "#" + seq  one item per version: its head and evidence, stored once (deflated:
 *                                 dynamodb/head-text.ts), under the position of the first entry it
 *                                 is in force at; with the identity of the event that made that entry
 * The view at any instant is the newest entry at or before it with the newest head at or before it:
 * two Queries whose keys follow from the reference and the instant alone, sent together (one round
 * trip, whatever the history's length; docs/semantics.md#storage). The heads have a partition of
 * their own because a state change writes an entry and a head: in one partition a busy record took
 * two write units an event on one key, which caps what one reference takes at about 450 events a
 * second (1,000 write units a partition); apart, each key takes about one (docs/capacity.md).
 * The layout before kept the heads in the entries' partition ("V#" items sorting after every "T#"
 * key), and event marks there too ("W#" + at + "#" + seq: an identity in an item of its own):
 * readers still find an old head there (headOfVersion), and `npm run migrate` moves both
 * (lib/migrate/steps/heads-apart.ts, inline-marks.ts).
 *
 * The table's own metadata lives at pk = "S#TABLE", sk = "#".
 *
 * Received events wait in their own partitions (functions/store/dynamodb/pending-items.ts), one per event and one
 * per delivery:
 *   pk = "P#" + sourceId + "#event:" + identity digest, sk = "#"   an accepted event, claimed once by
 *                                  its identity (docs/ingress.md#exactly-once-per-event); the sequencer
 *                                  integrates these
 *   pk = "P#" + sourceId + "#" + webhookId, sk = "#"                one delivery: the answer it was given
 * A webhook-id never holds a ':' (WEBHOOK_ID_PATTERN), so the two kinds of keys never meet.
 * The leading "P#" is what the receivers' IAM policy allows them to write (dynamodb:LeadingKeys),
 * so a receiver can never write a record, the ledger or the table's metadata.
 */
export const GENESIS_SK = '#';
/** The table's TTL attribute (lib/stack/record-table.ts): epoch seconds after which DynamoDB may delete the item. Only bookkeeping carries it. */
export const TTL_ATTRIBUTE = 'expiresAt';
export const TABLE_META_PK = 'S#TABLE';
export const TABLE_SCHEMA_VERSION = 'svc.table.v1';

/**
 * The sparse index of deliveries waiting for the sequencer: only a pending item carries `queue`
 * (functions/store/dynamodb/pending-items.ts), and the sequencer removes it once the event is integrated or set
 * aside. Keys only: the sequencer reads the items themselves, strongly consistent.
 *
 * Its partition key is one of PENDING_SHARDS shards, `PENDING#<n>`, n from a hash of the event's key:
 * an index partition takes at most 1,000 write units a second and every waiting event costs it two
 * (its entry put, then removed), so one shard would cap ingest at 500 events/s. 64 shards hold
 * 10,000 events/s at about 31% of a partition's limit each (docs/ingress.md#the-pending-index);
 * the sequencer lists them with one Query per shard, all at once.
 */
export const PENDING_INDEX = { name: 'pending', partitionKey: 'queue', sortKey: 'receivedAt' } as const;

/** The shards of the pending index (PENDING_QUEUE_PREFIX + 0 .. PENDING_SHARDS - 1). */
export const PENDING_SHARDS = 64;
/** Leading characters of PENDING_INDEX.partitionKey on an item while it waits for the sequencer (absent otherwise). */
export const PENDING_QUEUE_PREFIX = 'PENDING#';
/** The index partition of an event waiting under `key`: a stable hash of the key, so every write of the event names the same shard. */
export function pendingQueue(key: string): string {
  // FNV-1a, 32 bits: uniform enough over SHA-256 digests, and no crypto module on the receivers' path.
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return `${PENDING_QUEUE_PREFIX}${(hash >>> 0) % PENDING_SHARDS}`;
}
/** Every shard's partition key value, in order. */
export const pendingQueues = (): string[] => Array.from({ length: PENDING_SHARDS }, (_, n) => `${PENDING_QUEUE_PREFIX}${n}`);
/** The single partition of the pending index before it was sharded (a table migrated from it holds none: lib/migrate). */
export const LEGACY_PENDING_QUEUE = 'PENDING';

export const recordPk = (reference: string): string => `R#${reference}`;
/** Trailing characters of the partition key of a record's heads (recordHeadsPk). */
const HEADS_PK_SUFFIX = '#V';
/** The partition of a record's versions' heads, beside its entries' (layout above). */
export const recordHeadsPk = (reference: string): string => `${recordPk(reference)}${HEADS_PK_SUFFIX}`;
/**
 * Whether a record partition key is its heads partition's: the suffix after the reference, never
 * inside it ('#' is never in a reference, so "R#V", the entries of the reference "V", is not one).
 */
export const isRecordHeadsPk = (pk: string): boolean => pk.startsWith(RECORD_PK_PREFIX) && pk.slice(RECORD_PK_PREFIX.length).endsWith(HEADS_PK_SUFFIX);
/** The reference a record partition key (entries' or heads') belongs to. */
export const referenceOfRecordPk = (pk: string): string => pk.slice(RECORD_PK_PREFIX.length, isRecordHeadsPk(pk) ? -HEADS_PK_SUFFIX.length : undefined);

/** Leading characters of every pending-event partition key (the receivers' only writable keys). */
export const PENDING_PK_PREFIX = 'P#';
export const pendingPk = (sourceId: string, webhookId: string): string => `${PENDING_PK_PREFIX}${sourceId}#${webhookId}`;
/** The key of an accepted event: its sender and the digest of its CloudEvents identity (domain/ingress/identity.ts). */
export const eventPk = (sourceId: string, identityDigest: string): string => `${PENDING_PK_PREFIX}${sourceId}#event:${identityDigest}`;
/** Leading characters of every record partition key (the receivers read these, never write them). */
export const RECORD_PK_PREFIX = 'R#';

export function entrySk(at: string, seq: number): string {
  return `T#${canonicalInstant(at)}#${String(seq).padStart(7, '0')}`;
}

/** The sequence number in an entry's sort key (entrySk), which keeps entries of the same instant apart. */
export const entrySeqOf = (sk: string): number => Number(sk.slice(sk.lastIndexOf('#') + 1));

/** Leading characters of each kind of a record's items (layout above). */
export const ENTRY_SK_PREFIX = 'T#';
export const HEAD_SK_PREFIX = 'V#';
export const EVENT_MARK_SK_PREFIX = 'W#';
/** The key of the item of `prefix` at an entry's position (the same instant and sequence number). */
export const atPositionOf = (entrySk: string, prefix: string): string => `${prefix}${entrySk.slice(ENTRY_SK_PREFIX.length)}`;

const versionOf = (head: unknown): number | null => {
  const version = (head as { version?: unknown } | null | undefined)?.version;
  return typeof version === 'number' ? version : null;
};

/**
 * Where entries derived from these go (RecordChange.after): after the highest sequence number among
 * them; and which versions they show, whose heads are therefore stored already ("3@1,2").
 */
export function positionAfter(entries: readonly { id: string; head?: unknown }[]): string {
  const highest = entries.reduce((h, e) => Math.max(h, entrySeqOf(e.id)), -1);
  const versions = [...new Set(entries.map((e) => versionOf(e.head)).filter((v): v is number => v !== null))].sort((a, b) => a - b);
  return versions.length > 0 ? `${highest}@${versions.join(',')}` : String(highest);
}

/** What positionAfter wrote: the highest sequence number and the versions whose heads are stored. */
export function parsePosition(after: string): { seq: number; storedVersions: Set<number> } {
  const [seq, versions] = after.split('@');
  return { seq: Number(seq), storedVersions: new Set(versions ? versions.split(',').map(Number) : []) };
}

/** Sort keys for a change's entries: a stored one keeps its own, a new one comes after `after` (absent: numbered in order from 0). */
export function sortKeysOf(entries: readonly { id: string | null; at: string }[], after: string | undefined): string[] {
  if (after === undefined) return entries.map((e, seq) => e.id ?? entrySk(e.at, seq));
  let seq = parsePosition(after).seq;
  return entries.map((e) => e.id ?? entrySk(e.at, ++seq));
}

/** Upper bound (inclusive) for items of `prefix` at or before `at` (entries by default). '~' sorts after every digit. */
export function cutSk(at: string, prefix = ENTRY_SK_PREFIX): string {
  return `${prefix}${canonicalInstant(at)}#~`;
}

/** RFC 3339 with any offset -> UTC ISO-8601 with milliseconds (the stored, sortable form). */
export function canonicalInstant(at: string): string {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) throw new RangeError(`not an instant: ${at}`);
  return new Date(ms).toISOString();
}

/**
 * The integrity log's items, in the same table, each kind under keys of its own so that no
 * partition takes every batch's writes (docs/ledger.md#where-the-log-lives-in-the-table):
 *   pk = "L#LOG", sk = "#"                   head: origin, treeSize, the latest signed checkpoint,
 *                                            and, while a writer runs, its lease (lockId, lockedAt,
 *                                            lockUntil: after that instant another writer may take it);
 *                                            a few conditional writes a batch
 *   pk = "L#T#" + level(2) + "#" + index(12), sk = "#"
 *                                            a hash tile (C2SP tlog-tiles, the bytes of tile/<level>/<index>),
 *                                            grown in place while partial; level 0 holds the leaf hashes,
 *                                            so no item per leaf is kept
 *   pk = "L#C#" + size(12), sk = "#"         every checkpoint published, by tree size
 *   pk = "L#J", sk = "#"                     the batch journal's header (dynamodb/journal.ts)
 *   pk = "L#J#" + treeSize(12) + "#" + chunk(6), sk = "#"
 *                                            a batch's journal chunks, each alone in its partition (a
 *                                            batch's journal is a few dozen write units), removed once
 *                                            the batch is done; a part writer's own chunks are under
 *                                            "J#" (PART_CHUNK_PK_PREFIX), the header naming them
 * The layout before (every item under pk = "L#LOG": leaves "E#", checkpoints "C#", tiles "T#",
 * journal "J#") is moved by `npm run migrate` (lib/migrate).
 */
export const LEDGER_PK = 'L#LOG';
export const LEDGER_HEAD_SK = '#';
/** The sort key of every ledger item that is alone in its partition. */
export const LEDGER_ITEM_SK = '#';
const pad12 = (n: number): string => String(n).padStart(12, '0');
/**
 * The key prefix of a log's items. The table's first log keeps the unprefixed keys above ("L#");
 * a log that succeeds it after a key change (docs/ledger.md#when-the-key-must-change) keys every
 * item the same way under "L@" + the first 16 hex digits of SHA-256(its origin) + "#", so two logs
 * never share a key and the old log's items stay as they were.
 */
export const FIRST_LOG_KEYS = 'L#';
const logIdOf = (origin: string): string => createHash('sha256').update(origin, 'utf8').digest('hex').slice(0, 16);
/** The key prefix of a log that succeeds another (a function of its origin alone: nothing to allocate). */
export const successorLogKeys = (origin: string): string => `L@${logIdOf(origin)}#`;
/**
 * Where a log's tile log is below the log prefix: the first log's at the prefix itself, a
 * successor's below `logs/<id>/`, the same id as its keys (docs/ledger.md#the-urls).
 */
export function tilesDirOfKeys(keys: string): string {
  const id = /^L@([0-9a-f]{16})#$/.exec(keys)?.[1];
  return id ? `logs/${id}/` : '';
}
export const ledgerHeadPk = (keys = FIRST_LOG_KEYS): string => `${keys}LOG`;
export const ledgerCheckpointPk = (treeSize: number, keys = FIRST_LOG_KEYS): string => `${keys}C#${pad12(treeSize)}`;
export const ledgerTilePk = (level: number, index: number, keys = FIRST_LOG_KEYS): string => `${keys}T#${String(level).padStart(2, '0')}#${pad12(index)}`;
export const ledgerJournalPk = (keys = FIRST_LOG_KEYS): string => `${keys}J`;
export const LEDGER_JOURNAL_PK = ledgerJournalPk();
export const ledgerJournalChunkPk = (treeSize: number, chunk: number, keys = FIRST_LOG_KEYS): string => `${keys}J#${pad12(treeSize)}#${String(chunk).padStart(6, '0')}`;
/**
 * Leading characters of the journal chunks a part writer stores itself (dynamodb/journal.ts), each
 * alone in its partition: pk = "J#" + name + "#" + chunk(6), sk = "#", the name a new one for every
 * part of every batch (the sequencer's batch id and the part's number). Not a ledger item: the
 * part writers' role may write them, and a writer finishing a journal writes only records and
 * events from them.
 */
export const PART_CHUNK_PK_PREFIX = 'J#';
export const partChunkPk = (name: string, chunk: number): string => `${PART_CHUNK_PK_PREFIX}${name}#${String(chunk).padStart(6, '0')}`;
