import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { scanWhere } from '../step';
import { forEachConcurrently, putItems } from '../../../functions/store/dynamodb/put-items';
import { partitionItems } from '../../../functions/store/dynamodb/records';
import { entryPartsOf, headItem, headPartsOf, itemClass, leanEntryItem, type Item } from '../../../functions/store/dynamodb/record-items';
import { ENTRY_SK_PREFIX, RECORD_PK_PREFIX, recordPk } from '../../../functions/store/layout';

/** Records rewritten at once. */
const CONCURRENCY = 4;

export interface LeanRecordsSummary {
  /** Records whose entry items were rewritten. */
  records: number;
  /** Entry items rewritten lean. */
  entries: number;
  /** Version heads written (once each). */
  heads: number;
  /** Identities of the events that made entries, kept (on the head's item or the entry's). */
  eventKeys: number;
  /** Records left as they were, and why: they stay readable as they are (the stores read both layouts). */
  kept: { reference: string; reason: string }[];
}

/** The references holding entry items of the layout before (each carrying its version's head): a Scan of the keys. */
async function referencesToRewrite(client: DynamoDBClient, table: string): Promise<string[]> {
  const found = await scanWhere(
    { client, table },
    {
      ProjectionExpression: 'pk',
      FilterExpression: 'begins_with(pk, :record) AND begins_with(sk, :entry) AND attribute_exists(head)',
      ExpressionAttributeValues: { ':record': { S: RECORD_PK_PREFIX }, ':entry': { S: ENTRY_SK_PREFIX } },
    },
  );
  const references = new Set(found.map((item) => item.pk!.S!.slice(RECORD_PK_PREFIX.length)));
  return [...references].sort();
}

/** One record's new items from its items as stored, or why it is kept as it is. */
export function leanItemsOf(reference: string, items: readonly Item[]): { heads: Item[]; entries: Item[]; eventKeys: number } | { kept: string } {
  const heads = new Map<number, string>();
  for (const item of items) if (itemClass(item) === 'head') heads.set(headPartsOf(item).version, headPartsOf(item).headText);
  const out = { heads: [] as Item[], entries: [] as Item[], eventKeys: 0 };
  // In sort-key order: a version's head goes at the first entry it is in force at.
  const old = items.filter((item) => itemClass(item) === 'entry' && item.head?.S !== undefined).sort((a, b) => (a.sk!.S! < b.sk!.S! ? -1 : 1));
  for (const item of old) {
    const parts = entryPartsOf(item);
    const known = heads.get(parts.version);
    if (known !== undefined && known !== parts.headText) return { kept: `version ${parts.version} has more than one head (at ${parts.id})` };
    // The event that made the entry: on the head's item when the entry begins a version, else on the entry's item (as the writers keep it).
    if (known === undefined) {
      heads.set(parts.version, parts.headText!);
      out.heads.push(headItem(reference, parts.id, parts.version, parts.headText!, parts.eventKey));
      out.entries.push(leanEntryItem(reference, { ...parts, eventKey: undefined }));
    } else out.entries.push(leanEntryItem(reference, parts));
    if (parts.eventKey) out.eventKeys++;
  }
  return out;
}

/**
 * Rewrites a table's record items from the layout where every entry item carried its version's
 * head and evidence to the lean one (functions/store/layout.ts, docs/semantics.md#storage): each
 * version's head once, at the first entry it is in force at; each entry item lean; the event that
 * made an entry on its head's item or its own, as the writers keep it. Per record: the heads first, then the entries
 * (each a PutItem over the old item under the same key), so a reader meets a whole record in one
 * layout or the other, or entries of both (the stores read both), never an entry without its head.
 * Idempotent: run again, it finds nothing to rewrite; stopped part-way, run again, it finishes.
 * Run it while no writer runs (the sequencer and the loader hold the ledger lease while they write).
 */
export async function leanRecords(client: DynamoDBClient, table: string): Promise<LeanRecordsSummary> {
  const summary: LeanRecordsSummary = { records: 0, entries: 0, heads: 0, eventKeys: 0, kept: [] };
  await forEachConcurrently(await referencesToRewrite(client, table), CONCURRENCY, async (reference) => {
    const lean = leanItemsOf(reference, await partitionItems(client, table, recordPk(reference)));
    if ('kept' in lean) {
      summary.kept.push({ reference, reason: lean.kept });
      return;
    }
    await putItems(client, table, lean.heads);
    await putItems(client, table, lean.entries);
    summary.records++;
    summary.entries += lean.entries.length;
    summary.heads += lean.heads.length;
    summary.eventKeys += lean.eventKeys;
  });
  summary.kept.sort((a, b) => a.reference.localeCompare(b.reference));
  return summary;
}
