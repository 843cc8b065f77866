/**
 * The table layout, known only to functions/store/.
 *
 * One partition per record: pk = "R#" + reference.
 *   sk = "#"                      genesis item: the record exists (kind); sorts before every entry
 *   sk = "T#" + at + "#" + seq    one item per timeline entry, `at` as UTC ISO-8601 with
 *                                 milliseconds, so sort order is time order
 * Each entry item is self-sufficient: it carries the public entry, the cumulative view at that
 * instant (state, last authority observation) and the record version in force with its evidence.
 * So the view at any instant is the newest entry at or before it, and one descending Query with
 * `sk <= cut` returns that view, the timeline window below it, and (for short histories or an
 * instant before the first entry) the genesis item: one request, whatever the history length.
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
export const TABLE_META_PK = 'S#TABLE';
export const TABLE_SCHEMA_VERSION = 'svc.table.v1';

/**
 * The sparse index of deliveries waiting for the sequencer: only a pending item carries `queue`
 * (functions/store/dynamodb/pending-items.ts), and the sequencer removes it once the event is integrated or set
 * aside. Keys only: the sequencer reads the items themselves, strongly consistent.
 */
export const PENDING_INDEX = { name: 'pending', partitionKey: 'queue', sortKey: 'receivedAt' } as const;

/** The value of PENDING_INDEX.partitionKey on an item while it waits for the sequencer (absent otherwise). */
export const PENDING_QUEUE = 'PENDING';

export const recordPk = (reference: string): string => `R#${reference}`;

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

/** Where entries derived from these go: after the highest sequence number among them (RecordChange.after). */
export const positionAfter = (entries: readonly { id: string }[]): string => String(entries.reduce((highest, e) => Math.max(highest, entrySeqOf(e.id)), -1));

/** Sort keys for a change's entries: a stored one keeps its own, a new one comes after `after` (absent: numbered in order from 0). */
export function sortKeysOf(entries: readonly { id: string | null; at: string }[], after: string | undefined): string[] {
  if (after === undefined) return entries.map((e, seq) => e.id ?? entrySk(e.at, seq));
  let seq = Number(after);
  return entries.map((e) => e.id ?? entrySk(e.at, ++seq));
}

/** Upper bound (inclusive) for entries at or before `at`. '~' sorts after every digit. */
export function cutSk(at: string): string {
  return `T#${canonicalInstant(at)}#~`;
}

/** RFC 3339 with any offset -> UTC ISO-8601 with milliseconds (the stored, sortable form). */
export function canonicalInstant(at: string): string {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) throw new RangeError(`not an instant: ${at}`);
  return new Date(ms).toISOString();
}

/**
 * The integrity log's items, in the same table under their own partition:
 *   pk = "L#LOG", sk = "#"                 head: origin, treeSize, the latest signed checkpoint,
 *                                          and, while a writer runs, its lease (lockId, lockedAt,
 *                                          lockUntil: after that instant another writer may take it)
 *   pk = "L#LOG", sk = "E#" + index(12)    one leaf: its hash, and the reference and version it logs
 *   pk = "L#LOG", sk = "C#" + size(12)     every checkpoint published, by tree size
 *   pk = "L#LOG", sk = "T#" + level(2) + "#" + index(12)
 *                                          a hash tile (C2SP tlog-tiles, the bytes of tile/<level>/<index>), grown in place while partial
 *   pk = "L#LOG", sk = "J#" and "J#" + chunk(6)
 *                                          the batch journal (dynamodb/journal.ts)
 */
export const LEDGER_PK = 'L#LOG';
export const LEDGER_HEAD_SK = '#';
const pad12 = (n: number): string => String(n).padStart(12, '0');
export const ledgerLeafSk = (index: number): string => `E#${pad12(index)}`;
export const ledgerCheckpointSk = (treeSize: number): string => `C#${pad12(treeSize)}`;
export const ledgerTileSk = (level: number, index: number): string => `T#${String(level).padStart(2, '0')}#${pad12(index)}`;
