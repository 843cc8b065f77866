import { QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { DEMO_CREDENTIAL_RESTRICTED_VALUES, DEMO_CREDENTIALS, DEMO_STATUS_LISTS, demoCredentialRecords } from '../../fixtures/demo-credentials';
import { credentialsOperations } from '../../functions/contract/operations/credentials';
import { handler as getPortableCredential } from '../../functions/handlers/get-portable-credential';
import { handler as getStatusList } from '../../functions/handlers/get-status-list';
import { handler as verifyCredential } from '../../functions/handlers/verify-credential';
import { storeClient } from '../../functions/store/client';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';
import { headTextOf } from '../../functions/store/dynamodb/head-text';

const TABLE = 'credential-test';
const ANCHOR = new Date(Math.floor(Date.now() / 60_000) * 60_000);
let store: EmbeddedStore;
let client: DynamoDBClient;

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** The proxy event API Gateway sends for a GET on one of the credential routes. */
function event(resource: string, path: string, pathParameters: Record<string, string>, query: Record<string, string> | null = null): APIGatewayProxyEvent {
  return {
    resource,
    path,
    httpMethod: 'GET',
    // What a client says about the host is never used: links come from the configured origin.
    headers: { host: 'forged.example', 'x-forwarded-host': 'forged.example', 'x-forwarded-proto': 'http' },
    multiValueHeaders: {},
    queryStringParameters: query,
    multiValueQueryStringParameters: null,
    pathParameters,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { path, requestId: `req-${Math.random().toString(36).slice(2)}`, domainName: 'forged.example' } as APIGatewayProxyEvent['requestContext'],
  };
}
const context = { functionName: 'test', awsRequestId: 'local', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
const invoke = async (h: Handler, e: APIGatewayProxyEvent) => {
  const out = await h(e, context);
  return { status: out.statusCode, body: JSON.parse(out.body), headers: out.headers ?? {} };
};

const verify = (id: string) => invoke(verifyCredential as Handler, event('/v1/credentials/verify/{claimId}', `/v1/credentials/verify/${id}`, { claimId: id }));
const portable = (id: string) =>
  invoke(getPortableCredential as Handler, event('/v1/portable-credentials/{claimId}/vc.json', `/v1/portable-credentials/${id}/vc.json`, { claimId: id }));
const statusList = (listId: string, timestamp?: string) =>
  invoke(getStatusList as Handler, event('/v1/status-lists/{listId}', `/v1/status-lists/${listId}`, { listId }, timestamp ? { timestamp } : null));

beforeAll(async () => {
  process.env.PUBLIC_BASE_URL = 'https://trust.example.org';
  store = await startEmbeddedStore();
  configureLocalEnvironment(store.endpoint, TABLE);
  client = localClient(store.endpoint);
  await loadDocument({ records: demoCredentialRecords(ANCHOR) }, { client, table: TABLE, createTable: true });
});
afterAll(async () => {
  client.destroy();
  storeClient().destroy();
  await store.close();
});

describe('credential handlers against the embedded store', () => {
  let commands: { name: string; input: Record<string, any> }[] = [];
  beforeAll(() => {
    storeClient().middlewareStack.add(
      (next, ctx) => async (args) => {
        commands.push({ name: String(ctx.commandName), input: args.input as Record<string, any> });
        return next(args);
      },
      { step: 'initialize', name: 'recordCommands' },
    );
  });
  beforeEach(() => {
    commands = [];
  });

  it('reads each answer in one round trip (the entries and the head in force, two Queries sent together), as of the request instant, newest first', async () => {
    expect((await verify(DEMO_CREDENTIALS.active)).status).toBe(200);
    expect((await portable(DEMO_CREDENTIALS.active)).status).toBe(200);
    expect((await statusList(DEMO_STATUS_LISTS.revocation)).status).toBe(200);
    expect(commands.map((c) => c.name)).toEqual(Array(6).fill('QueryCommand'));
    commands.forEach((c, i) => {
      if (i % 2 === 0) expect(c.input).toMatchObject({ TableName: TABLE, KeyConditionExpression: 'pk = :pk AND sk <= :cut', ScanIndexForward: false, Limit: 2 });
      else expect(c.input).toMatchObject({ TableName: TABLE, KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to', ScanIndexForward: false, Limit: 1 });
      expect(c.input.FilterExpression).toBeUndefined();
    });
    expect(commands[4].input.ExpressionAttributeValues[':pk'].S).toBe(`R#status-list/${DEMO_STATUS_LISTS.revocation}`);
  });

  it('builds absolute URLs from the request as API Gateway delivers it', async () => {
    const { body } = await verify(DEMO_CREDENTIALS.suspended);
    expect(body.links.portableCredential).toBe(`https://trust.example.org/v1/portable-credentials/${DEMO_CREDENTIALS.suspended}/vc.json`);
    expect(body.credentialStatus[1].statusListCredential).toBe(`https://trust.example.org/v1/status-lists/${DEMO_STATUS_LISTS.suspension}`);
  });

  it('stores restricted subject data with the credential, and no handler ever returns it', async () => {
    // The record's entries, and its heads in a partition of their own (functions/store/layout.ts).
    const items = [];
    for (const pk of [`R#${DEMO_CREDENTIALS.active}`, `R#${DEMO_CREDENTIALS.active}#V`]) {
      const stored = await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: pk } } }));
      items.push(...(stored.Items ?? []));
    }
    // Heads are kept deflated (functions/store/dynamodb/head-text.ts): their text, beside every item as stored.
    const storedText = JSON.stringify([items, items.map(headTextOf)]);
    for (const value of DEMO_CREDENTIAL_RESTRICTED_VALUES) expect(storedText).toContain(JSON.stringify(value).slice(1, -1));

    for (const id of Object.values(DEMO_CREDENTIALS)) {
      const text = JSON.stringify([(await verify(id)).body, (await portable(id)).body]);
      for (const value of DEMO_CREDENTIAL_RESTRICTED_VALUES) expect(text).not.toContain(value);
    }
  });

  it('gives each published version its own publication instant and version number', async () => {
    const versions = new Set<number>();
    for (const days of [100, 20, 5, 1]) {
      const t = new Date(ANCHOR.getTime() - days * 86_400_000).toISOString();
      const { status, body } = await statusList(DEMO_STATUS_LISTS.suspension, t);
      expect(status).toBe(200);
      expect(Date.parse(body.validFrom)).toBeLessThanOrEqual(Date.parse(t));
      versions.add(Number(/Version (\d+)/.exec(body.description)![1]));
    }
    expect([...versions]).toEqual([1, 2, 3, 4]);
  });

  it('declares every credential route with read-only table access, and the JSON-LD context as a published document', () => {
    expect(credentialsOperations.map((op) => [op.method, op.path, op.integration])).toEqual([
      ['GET', '/v1/credentials/verify/{claimId}', { kind: 'lambda', entry: 'functions/handlers/verify-credential.ts', access: 'table-read' }],
      ['GET', '/v1/portable-credentials/{claimId}/vc.json', { kind: 'lambda', entry: 'functions/handlers/get-portable-credential.ts', access: 'table-read' }],
      ['GET', '/v1/status-lists/{listId}', { kind: 'lambda', entry: 'functions/handlers/get-status-list.ts', access: 'table-read' }],
      ['GET', '/v1/contexts/trust/v1.json', { kind: 'document', key: 'v1/contexts/trust/v1.json' }],
    ]);
  });
});
