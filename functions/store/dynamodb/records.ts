import { paginateQuery, QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { StoredTimelineEntry } from '../../domain/kinds/kind';
import { batchGetItems, WRITER_READ } from '../batch-get';
import { canonicalInstant, GENESIS_SK, positionAfter, recordPk, sortKeysOf } from '../layout';
import type { RecordChange, RecordStore, StoredTimeline, TimelineRequest } from '../ports/records';
import { dynamoRecordWindows } from './record-windows';
import { forEachConcurrently, putItems } from './put-items';
import { entryItem, entryOf, genesisItem, genesisOf, type Item } from './record-items';
import { tableMetaItem } from '../write';

/** Timelines read at once by one readTimelines call (each is a Query or two). */
const READ_CONCURRENCY = 8;

/**
 * The record store in a DynamoDB table (layout.ts): one partition per record. The read path's
 * window is record-windows.ts; the writers read strongly consistent, geneses in BatchGetItems of
 * 100 keys, timelines in Queries run together; writes are BatchWriteItems of 25.
 */
export function dynamoRecordStore(client: DynamoDBClient, table: string): RecordStore {
  return {
    ...dynamoRecordWindows(client, table),
    async readGeneses(references) {
      const items = await batchGetItems(client, table, references.map((r) => ({ pk: { S: recordPk(r) }, sk: { S: GENESIS_SK } })), WRITER_READ);
      return new Map(items.map((item) => [item.pk!.S!.slice(recordPk('').length), genesisOf(item)] as const));
    },

    async readTimelines(requests) {
      const out = new Map<string, StoredTimeline>();
      await forEachConcurrently(requests, READ_CONCURRENCY, async (request) => {
        const timeline = await readTimeline(client, table, request);
        if (timeline) out.set(request.reference, timeline);
      });
      return out;
    },

    async write(changes, options = {}) {
      const { entries, geneses } = recordChangeItems(changes);
      await putItems(client, table, entries, undefined, options);
      await putItems(client, table, geneses, undefined, options);
    },

    async markSchema() {
      await putItems(client, table, [tableMetaItem()]);
    },
  };
}

/** The items of record changes: every change's entries, then the geneses (written after all of them). */
export function recordChangeItems(changes: readonly RecordChange[]): { entries: Item[]; geneses: Item[] } {
  const entries = changes.flatMap((change) => {
    const keys = sortKeysOf(change.entries, change.after);
    return change.entries.map((e, i) => entryItem(change.reference, keys[i], e));
  });
  const geneses = changes.flatMap((change) => (change.genesis ? [genesisItem(change.reference, change.kind, change.genesis)] : []));
  return { entries, geneses };
}

/**
 * One record's timeline, strongly consistent: whole (one paginated Query), or from an instant (the
 * entry just before it and every entry at or after it: two Queries at once, however long the
 * history before). Null when no entry is stored under the reference.
 */
async function readTimeline(client: DynamoDBClient, table: string, request: TimelineRequest): Promise<StoredTimeline | null> {
  const pk = { S: recordPk(request.reference) };
  const items: Item[] = [];
  const readAll = async (condition: string, values: Item) => {
    for await (const page of paginateQuery({ client }, { TableName: table, KeyConditionExpression: condition, ExpressionAttributeValues: { ':pk': pk, ...values }, ConsistentRead: true })) {
      items.push(...(page.Items ?? []).filter((item) => item.sk?.S !== GENESIS_SK));
    }
  };
  let before: StoredTimelineEntry | null = null;
  if (request.from === null) await readAll('pk = :pk', {});
  else {
    const boundary = { S: `T#${canonicalInstant(request.from)}#` };
    const [prior] = await Promise.all([
      client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :boundary',
          ExpressionAttributeValues: { ':pk': pk, ':first': { S: 'T#' }, ':boundary': boundary },
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
        }),
      ),
      readAll('pk = :pk AND sk > :boundary', { ':boundary': boundary }),
    ]);
    before = prior.Items?.[0] ? entryOf(prior.Items[0]) : null;
  }
  const entries = items.map(entryOf);
  if (!before && entries.length === 0) return null;
  return { before, entries, after: positionAfter(before ? [before, ...entries] : entries) };
}
