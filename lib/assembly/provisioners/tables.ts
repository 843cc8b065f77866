import { CreateTableCommand, waitUntilTableExists, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { resourcesOfType } from '../cloud-assembly';
import type { Provisioner } from './provisioner';

type KeySchema = Array<{ AttributeName: string; KeyType: string }>;

/**
 * AWS::DynamoDB::Table: each table created in the embedded store with its keys, indexes and
 * billing mode, registered with the DynamoDB endpoint (its partition keys, for
 * dynamodb:LeadingKeys) and, when its stream is enabled, with the stream capture.
 */
export const tables: Provisioner = {
  types: ['AWS::DynamoDB::Table'],
  async provision({ template, resolver, services, notEmulated }) {
    const { dynamodb } = services;
    for (const [id, resource] of resourcesOfType(template, 'AWS::DynamoDB::Table')) {
      const props = resolver.resolve(resource.Properties ?? {}) as Record<string, any>;
      const name = String(resolver.ref(id));
      const keySchema = props.KeySchema as KeySchema;
      await dynamodb.admin.send(new CreateTableCommand(createTableInput(name, props)));
      // Provisioned once ACTIVE, as CloudFormation waits for it: the store answers CreateTable a moment before.
      await waitUntilTableExists({ client: dynamodb.admin, maxWaitTime: 30, minDelay: 0.1, maxDelay: 0.5 }, { TableName: name });
      if (props.ImportSourceSpecification) {
        notEmulated.push({ type: 'AWS::DynamoDB::Table', logicalId: id, reason: 'ImportSourceSpecification: the table starts empty here (--demo loads the demo data)' });
      }
      const indexPartitionKeys = new Map<string, string>();
      for (const index of [...(props.GlobalSecondaryIndexes ?? []), ...(props.LocalSecondaryIndexes ?? [])] as Array<{ IndexName: string; KeySchema: KeySchema }>) {
        indexPartitionKeys.set(index.IndexName, partitionKeyOf(index.KeySchema));
      }
      dynamodb.tables.set(name, { name, arn: resolver.getAtt(id, 'Arn'), partitionKey: partitionKeyOf(keySchema), indexPartitionKeys });
      if (props.StreamSpecification?.StreamViewType) {
        dynamodb.streamed.set(name, { name, streamArn: resolver.getAtt(id, 'StreamArn'), viewType: props.StreamSpecification.StreamViewType, keyAttributes: keySchema.map((k) => k.AttributeName) });
      }
    }
  },
};

function partitionKeyOf(keySchema: KeySchema): string {
  return keySchema.find((k) => k.KeyType === 'HASH')!.AttributeName;
}

/** CreateTable from the resource's properties (a provisioned table without throughput gets CloudFormation's 5/5). */
function createTableInput(name: string, props: Record<string, any>): CreateTableCommandInput {
  return {
    TableName: name,
    KeySchema: props.KeySchema,
    AttributeDefinitions: props.AttributeDefinitions,
    BillingMode: props.BillingMode ?? 'PROVISIONED',
    ...(props.BillingMode === 'PAY_PER_REQUEST' ? {} : { ProvisionedThroughput: props.ProvisionedThroughput ?? { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } }),
    ...(props.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: props.GlobalSecondaryIndexes } : {}),
    ...(props.LocalSecondaryIndexes ? { LocalSecondaryIndexes: props.LocalSecondaryIndexes } : {}),
    ...(props.StreamSpecification ? { StreamSpecification: { StreamEnabled: true, StreamViewType: props.StreamSpecification.StreamViewType } } : {}),
  };
}
