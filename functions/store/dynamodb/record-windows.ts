import { QueryCommand, type DynamoDBClient, type QueryCommandInput } from '@aws-sdk/client-dynamodb';
import { logger } from '../../logging/logger';
import { StoreUnavailable } from '../errors';
import { cutSk, GENESIS_SK, HEAD_SK_PREFIX, recordHeadsPk, recordPk } from '../layout';
import type { RecordWindow, RecordWindows } from '../ports/records';
import { WindowEntry } from '../window-entry';
import { entryPartsOf, headPartsOf, type Item } from './record-items';

/** The query of the items of one partition (a record's entries or its heads) between two keys (inclusive), as record-windows and records.ts send it. */
export function rangeQuery(table: string, pk: string, from: string, to: string, options: { newestFirst?: boolean; limit?: number; consistent?: boolean } = {}): QueryCommandInput {
  return {
    TableName: table,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': { S: pk }, ':from': { S: from }, ':to': { S: to } },
    ScanIndexForward: !options.newestFirst,
    Limit: options.limit,
    ConsistentRead: options.consistent,
  };
}

/**
 * The head of `version` when the newest head at or before an instant was another's (a version
 * brought back, or a write under way): every head of the record, newest first, strongly consistent,
 * until one of that version; then, if none, where the layout before kept heads (the entries'
 * partition, until `npm run migrate` moves them: lib/migrate/steps/heads-apart.ts). Rare, and a
 * second round trip.
 */
export async function headOfVersion(client: DynamoDBClient, table: string, reference: string, version: number): Promise<string | null> {
  for (const pk of [recordHeadsPk(reference), recordPk(reference)]) {
    let start: Item | undefined;
    do {
      const out = await client.send(new QueryCommand({ ...rangeQuery(table, pk, HEAD_SK_PREFIX, `${HEAD_SK_PREFIX}~`, { newestFirst: true, consistent: true }), ExclusiveStartKey: start }));
      const found = (out.Items ?? []).map(headPartsOf).find((h) => h.version === version);
      if (found) return found.headText;
      start = out.LastEvaluatedKey;
    } while (start);
  }
  return null;
}

async function send<T>(what: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw new StoreUnavailable(what, { cause: error });
  }
}

/**
 * The read path's window of a record in the table: one round trip, whatever the history's length,
 * eventually consistent. Two Queries sent together, each keyed by the reference and the instant
 * alone: the entries, descending, `sk <= cut`, Limit window + 1 (the window and one to tell whether
 * more exist; a short history's genesis item comes with them), and the newest head at or before
 * the instant in the record's heads partition, Limit 1: the head of the newest entry's version, unless a version was brought back
 * after another (then headOfVersion, a second trip). docs/semantics.md#storage.
 */
export function dynamoRecordWindows(client: DynamoDBClient, table: string): RecordWindows {
  return {
    async readWindow<E, V, H>(reference: string, at: string, limit: number): Promise<RecordWindow<E, V, H>> {
      const started = performance.now();
      const [entriesOut, headOut] = await send('Query record window', () =>
        Promise.all([
          client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk AND sk <= :cut', ExpressionAttributeValues: { ':pk': { S: recordPk(reference) }, ':cut': { S: cutSk(at) } }, ScanIndexForward: false, Limit: limit + 1 })),
          client.send(new QueryCommand(rangeQuery(table, recordHeadsPk(reference), HEAD_SK_PREFIX, cutSk(at, HEAD_SK_PREFIX), { newestFirst: true, limit: 1 }))),
        ]),
      );
      const items = entriesOut.Items ?? [];
      logger.debug('store read', { operation: 'Query record window', items: items.length, ms: Math.round(performance.now() - started) });
      let kind: string | null = null;
      const parts = [];
      for (const item of items) {
        if (item.sk?.S === GENESIS_SK) kind = item.kind?.S ?? null;
        else parts.push(entryPartsOf(item));
      }
      const more = parts.length > limit;
      if (more) parts.length = limit;
      const newest = parts[0];
      let headText = newest?.headText;
      if (newest && headText === undefined) {
        const head = headOut.Items?.[0] ? headPartsOf(headOut.Items[0]) : null;
        headText = head?.version === newest.version ? head.headText : ((await send('Query head of version', () => headOfVersion(client, table, reference, newest.version))) ?? undefined);
        if (headText === undefined) throw new StoreUnavailable(`Query record window: no head of version ${newest.version} of ${reference} (a write under way)`);
      }
      const entries = parts.map((p) => new WindowEntry<E, V, H>(p.at, JSON.parse(p.entryText) as E, p.viewText, p.headText ?? (p.version === newest.version ? headText : undefined)));
      kind ??= entries.length > 0 ? ((entries[0].head as { kind?: string }).kind ?? null) : null;
      return { exists: items.length > 0, kind, entries, more };
    },
  };
}
