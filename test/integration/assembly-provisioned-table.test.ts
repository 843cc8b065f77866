import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { CfnTemplate } from '../../lib/assembly/cloud-assembly';
import { IntrinsicResolver } from '../../lib/assembly/intrinsics';
import { describeNotEmulated, unprovisionedResources } from '../../lib/assembly/not-emulated';
import { DEFAULT_ACCOUNT, physicalResources } from '../../lib/assembly/physical-names';
import type { Deployment } from '../../lib/assembly/provisioners/provisioner';
import { tables } from '../../lib/assembly/provisioners/tables';
import { PROVISIONERS } from '../../lib/assembly/runner';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { PENDING_INDEX } from '../../functions/store/write';
import { synthesize } from '../infra/support';

/**
 * The assembly runner brings up a stack whose record table is provisioned (context
 * tableCapacity=provisioned, docs/deploy.md#the-tables-capacity): the table and its pending index are
 * created in the embedded store with their first capacity, and the auto scaling resources are named
 * as not emulated, with why. The whole runner on the default (on-demand) stack is test/e2e/assembly.test.ts.
 */

const account = { account: DEFAULT_ACCOUNT, region: 'eu-central-1', partition: 'aws', urlSuffix: 'amazonaws.com', stackName: 'Stack' };
let store: EmbeddedStore;
let admin: DynamoDBClient;

beforeAll(async () => {
  store = await startEmbeddedStore();
  admin = new DynamoDBClient({ endpoint: store.endpoint, region: account.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
});
afterAll(async () => {
  admin.destroy();
  await store.close();
});

test('a provisioned record table and its index are created with their first capacity; auto scaling is named as not emulated', async () => {
  const template = synthesize({ tableCapacity: 'provisioned', tableWriteUnits: '7-900' }).json as unknown as CfnTemplate;
  const resolver = new IntrinsicResolver(template, account, physicalResources(template, account, (name) => `http://sqs.local/${name}`));
  const dynamodb = { admin, tables: new Map(), streamed: new Map() };
  const notEmulated: unknown[] = [];
  await tables.provision({ template, resolver, services: { dynamodb }, notEmulated } as unknown as Deployment);

  const [name] = [...dynamodb.tables.keys()];
  const { Table } = await admin.send(new DescribeTableCommand({ TableName: name }));
  expect(Table?.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 5, WriteCapacityUnits: 7 });
  expect(Table?.GlobalSecondaryIndexes?.map((i) => [i.IndexName, i.ProvisionedThroughput?.ReadCapacityUnits, i.ProvisionedThroughput?.WriteCapacityUnits])).toEqual([[PENDING_INDEX.name, 5, 7]]);
  // The stream the sequencer's trigger reads is there as on demand.
  expect(dynamodb.streamed.has(name)).toBe(true);

  const lines = describeNotEmulated(unprovisionedResources(template, resolver, PROVISIONERS.flatMap((p) => p.types)));
  expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^AWS::ApplicationAutoScaling::ScalableTarget: the embedded store meters no capacity.*\(4 resources\)$/), expect.stringMatching(/^AWS::ApplicationAutoScaling::ScalingPolicy: the embedded store meters no capacity.*\(4 resources\)$/)]));
});
