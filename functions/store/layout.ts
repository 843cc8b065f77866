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
 * Received events wait in their own partitions (functions/store/pending.ts), one per event and one
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
 * (functions/store/pending.ts), and the sequencer removes it once the event is integrated or set
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
