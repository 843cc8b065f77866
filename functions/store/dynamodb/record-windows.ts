import { QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { logger } from '../../logging/logger';
import { StoreUnavailable } from '../errors';
import { cutSk, GENESIS_SK, recordPk } from '../layout';
import type { RecordWindow, RecordWindows, StoredEntry } from '../ports/records';

/**
 * A stored entry whose view and head (its state and its evidence, the larger part) are parsed
 * when first read. Every entry's timeline part is shown, but only the newest entry's view and head
 * are read: parsing the others was most of a 50-entry read's CPU time and garbage.
 */
class StoredItemEntry<E, V, H> implements StoredEntry<E, V, H> {
  #view: V | undefined;
  #head: H | undefined;

  constructor(
    readonly at: string,
    readonly entry: E,
    private readonly viewText: string,
    readonly headText: string,
  ) {}

  get view(): V {
    return (this.#view ??= JSON.parse(this.viewText) as V);
  }

  get head(): H {
    return (this.#head ??= JSON.parse(this.headText) as H);
  }

  /** Serialises as the plain entry it stands for. */
  toJSON(): StoredEntry<E, V, H> {
    return { at: this.at, entry: this.entry, view: this.view, head: this.head };
  }
}

/**
 * The read path's window of a record in the table: one Query, descending, `sk <= cut`, Limit
 * window + 2 (the window, one to tell whether more exist, and room for the genesis item), whatever
 * the history's length. Eventually consistent.
 */
export function dynamoRecordWindows(client: DynamoDBClient, table: string): RecordWindows {
  return {
    async readWindow<E, V, H>(reference: string, at: string, limit: number): Promise<RecordWindow<E, V, H>> {
      let items;
      const started = performance.now();
      try {
        const out = await client.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk AND sk <= :cut',
            ExpressionAttributeValues: { ':pk': { S: recordPk(reference) }, ':cut': { S: cutSk(at) } },
            ScanIndexForward: false,
            Limit: limit + 2,
          }),
        );
        items = out.Items ?? [];
      } catch (error) {
        throw new StoreUnavailable('Query record window', { cause: error });
      }
      logger.debug('store read', { operation: 'Query record window', items: items.length, ms: Math.round(performance.now() - started) });
      const entries: StoredEntry<E, V, H>[] = [];
      let kind: string | null = null;
      for (const item of items) {
        if (item.sk?.S === GENESIS_SK) {
          kind = item.kind?.S ?? null;
          continue;
        }
        entries.push(new StoredItemEntry<E, V, H>(item.at!.S!, JSON.parse(item.entry!.S!), item.view!.S!, item.head!.S!));
      }
      const more = entries.length > limit;
      if (more) entries.length = limit;
      kind ??= entries.length > 0 ? ((entries[0].head as { kind?: string }).kind ?? null) : null;
      return { exists: items.length > 0, kind, entries, more };
    },

  };
}
