import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { itemSize, readUnits, type Item as PricedItem } from '../../bench/lib/capacity/units';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { tableStores } from '../../functions/store/dynamodb';
import { buildEvent } from '../../lib/ingress/emit';
import { localClient } from '../../lib/local/service';
import { startDemoTable, type DemoTable } from '../support/demo-table';
import { claimAccepted } from '../support/stores';

/**
 * What an observation's event identity on its entry costs a reader (docs/semantics.md#storage):
 * a reference whose newest 51 entries are all observations events made (an authority confirming the
 * state held, over and over) is the window that carries the most identities. Its entries' Query
 * still reads within 12 KB (1.5 read units eventually consistent, by DynamoDB's rule), so the
 * default window with its head's Query stays at 2.
 */
const TABLE = 'window-observations';
const signer = signerFromKey(formatSignerKey('window.test/ledger', Buffer.alloc(32, 12)));
let demo: DemoTable;
beforeAll(async () => {
  demo = await startDemoTable(TABLE, signer, [DEMO_OBJECTS.current]);
});
afterAll(async () => demo?.close());

test('a window of 51 observations events made, each with its event\'s identity: within 12 KB, 1.5 read units', async () => {
  const client = localClient(demo.store.endpoint);
  try {
    const stores = tableStores(client, TABLE);
    const now = Date.now();
    for (let i = 0; i < 60; i++) {
      const at = new Date(now - 50_000 + i * 500).toISOString();
      await claimAccepted(stores.pending, { webhookId: `observed-${i}`, raw: JSON.stringify(buildEvent('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'DELIVERED' }, at)), receivedAt: new Date(now - 40_000 + i).toISOString() });
    }
    const runs = await sequenceAll({ ...stores, signer, tiles: directoryTileStore(demo.tiles) });
    expect(runs.reduce((n, r) => n + r.sequenced, 0)).toBe(60);
    // The window's entries as the read path asks for them: newest first, 50 and one more.
    const out = await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk AND sk <= :to', ExpressionAttributeValues: { ':pk': { S: `R#${DEMO_OBJECTS.current}` }, ':to': { S: 'T#~' } }, ScanIndexForward: false, Limit: 51 }));
    const items = out.Items ?? [];
    expect(items.every((item) => item.k?.B !== undefined)).toBe(true);
    const bytes = items.reduce((n, item) => n + itemSize(item as PricedItem), 0);
    // 232 bytes an entry here (a 13-character reference), 50 of them its event's identity.
    expect(itemSize(items[0] as PricedItem)).toBe(232);
    expect(bytes).toBeLessThanOrEqual(12 * 1024);
    expect(readUnits(bytes, 'eventual')).toBe(1.5);
  } finally {
    client.destroy();
  }
});
