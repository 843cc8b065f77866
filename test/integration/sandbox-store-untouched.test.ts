import { ListTablesCommand, paginateScan, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { operations } from '../../functions/contract/operations';
import { localClient, LOCAL_TABLE, type LocalService } from '../../lib/local/service';
import { getJson, startTestService } from '../support/local';
import { sandboxCalls } from '../support/sandbox-calls';

/**
 * "No side effect" proved against the store: every item of the embedded store is read before and
 * after running every sandbox operation (all published examples, refused inputs, unknown
 * provider, wrong methods, oversized bodies) through the local server, and must be byte for byte
 * the same.
 */
let service: LocalService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

async function snapshotStore(): Promise<{ tables: string[]; items: string[] }> {
  const client = localClient(service.storeEndpoint);
  try {
    const tables = (await client.send(new ListTablesCommand({}))).TableNames ?? [];
    const items: string[] = [];
    for (const table of tables) {
      for await (const page of paginateScan({ client }, { TableName: table, ConsistentRead: true })) {
        for (const item of page.Items ?? []) items.push(`${table}\t${canonicalItem(item)}`);
      }
    }
    return { tables, items: items.sort() };
  } finally {
    client.destroy();
  }
}

/** An item as text with its attributes in name order, so equal items give equal text. */
function canonicalItem(item: Record<string, AttributeValue>): string {
  return JSON.stringify(Object.keys(item).sort().map((name) => [name, item[name]]), (_key, value) =>
    value instanceof Uint8Array ? { bytes: Buffer.from(value).toString('base64') } : value,
  );
}

it('the embedded store is byte-for-byte unchanged after every sandbox operation has run', async () => {
  const before = await snapshotStore();
  expect(before.tables).toContain(LOCAL_TABLE);
  expect(before.items.length).toBeGreaterThan(100);

  const calls = sandboxCalls();
  // Every sandbox operation of the contract table is among the calls.
  const sandboxOperationPaths = operations.filter((op) => op.path.startsWith('/developers/sandbox/') && op.method === 'POST').map((op) => op.path);
  for (const template of sandboxOperationPaths) {
    const pattern = new RegExp(`^${template.replace('{providerId}', '[^/]+')}$`);
    expect(calls.some((call) => call.method === 'POST' && call.expectStatus === 200 && pattern.test(call.path))).toBe(true);
  }
  for (const call of calls) {
    const res = await getJson(`${service.url}${call.path}`, { method: call.method, body: call.body, headers: call.body === undefined ? {} : { 'content-type': 'application/json' } });
    expect({ what: call.what, status: res.status }).toEqual({ what: call.what, status: call.expectStatus });
  }

  const after = await snapshotStore();
  expect(after.tables).toEqual(before.tables);
  expect(after.items.length).toBe(before.items.length);
  expect(after.items).toEqual(before.items);
});
