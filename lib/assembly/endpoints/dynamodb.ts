import type { Call } from '../iam/evaluator';
import { coralRefusalTypes, jsonBody, jsonRefusal, MalformedRequest, operationOf, type InboundRequest, type ServiceRules } from './iam-endpoint';

/**
 * DynamoDB requests as IAM sees them: the action is `dynamodb:<Operation>`, the resource the
 * table's ARN (an index's ARN for a Query or Scan of an index), and `dynamodb:LeadingKeys` holds
 * the partition key values the request touches (the key of an item, the partition of a Query, every
 * key of a batch), as IAM's fine-grained access control evaluates them.
 */

export interface TableInfo {
  name: string;
  arn: string;
  /** The table's partition key attribute, and each index's. */
  partitionKey: string;
  indexPartitionKeys: Map<string, string>;
}

type AttributeValue = Record<string, unknown>;

/** The scalar of an attribute value ({ S: "x" } -> "x"). */
function scalarOf(value: AttributeValue | undefined): string | undefined {
  if (!value) return undefined;
  for (const type of ['S', 'N', 'B'] as const) if (typeof value[type] === 'string') return value[type] as string;
  return undefined;
}

/** The partition key value a KeyConditionExpression (or legacy KeyConditions) fixes. */
function queriedPartition(body: Record<string, any>, partitionKey: string): string | undefined {
  if (typeof body.KeyConditionExpression === 'string') {
    const names = (body.ExpressionAttributeNames ?? {}) as Record<string, string>;
    const values = (body.ExpressionAttributeValues ?? {}) as Record<string, AttributeValue>;
    for (const clause of body.KeyConditionExpression.split(/\s+AND\s+/i)) {
      const match = /^\s*\(?\s*(#?[\w.-]+)\s*=\s*(:[\w-]+)\s*\)?\s*$/.exec(clause) ?? /^\s*\(?\s*(:[\w-]+)\s*=\s*(#?[\w.-]+)\s*\)?\s*$/.exec(clause);
      if (!match) continue;
      const [left, right] = match[1].startsWith(':') ? [match[2], match[1]] : [match[1], match[2]];
      const attribute = left.startsWith('#') ? names[left] : left;
      if (attribute === partitionKey) return scalarOf(values[right]);
    }
    return undefined;
  }
  const legacy = body.KeyConditions?.[partitionKey];
  return legacy?.ComparisonOperator === 'EQ' ? scalarOf(legacy.AttributeValueList?.[0]) : undefined;
}

export function dynamoDbRules(tables: ReadonlyMap<string, TableInfo>, region: string, account: string): ServiceRules {
  const tableOf = (nameOrArn: unknown): TableInfo | { name: string; arn: string; partitionKey: undefined; indexPartitionKeys: Map<string, string> } => {
    if (typeof nameOrArn !== 'string' || nameOrArn.length === 0) throw new MalformedRequest('1 validation error detected: Value null at \'tableName\' failed to satisfy constraint: Member must not be null');
    const name = nameOrArn.startsWith('arn:') ? nameOrArn.slice(nameOrArn.indexOf(':table/') + 7).split('/')[0] : nameOrArn;
    return tables.get(name) ?? { name, arn: `arn:aws:dynamodb:${region}:${account}:table/${name}`, partitionKey: undefined, indexPartitionKeys: new Map() };
  };
  const leading = (values: Array<string | undefined>): Record<string, string[]> => {
    const known = values.filter((v): v is string => v !== undefined);
    return known.length > 0 ? { 'dynamodb:LeadingKeys': [...new Set(known)] } : {};
  };

  return {
    signingName: 'dynamodb',
    callsOf(request: InboundRequest): Call[] {
      const operation = operationOf(request, 'DynamoDB_20120810');
      const body = jsonBody(request);
      const action = `dynamodb:${operation}`;
      const extra = (): Record<string, string> => ({
        ...(typeof body.Select === 'string' ? { 'dynamodb:Select': body.Select } : {}),
        ...(typeof body.ReturnValues === 'string' ? { 'dynamodb:ReturnValues': body.ReturnValues } : {}),
      });
      switch (operation) {
        case 'ListTables':
        case 'DescribeLimits':
        case 'DescribeEndpoints':
          return [{ action, resource: '*' }];
        case 'BatchGetItem':
        case 'BatchWriteItem':
          return Object.entries((body.RequestItems ?? {}) as Record<string, any>).map(([name, requests]) => {
            const table = tableOf(name);
            const keys =
              operation === 'BatchGetItem'
                ? ((requests?.Keys ?? []) as AttributeValue[]).map((key) => scalarOf(key[table.partitionKey ?? ''] as AttributeValue))
                : ((requests ?? []) as any[]).map((r) => scalarOf((r?.PutRequest?.Item ?? r?.DeleteRequest?.Key ?? {})[table.partitionKey ?? '']));
            return { action, resource: table.arn, context: leading(keys) };
          });
        case 'GetItem':
        case 'DeleteItem':
        case 'UpdateItem':
        case 'PutItem': {
          const table = tableOf(body.TableName);
          const item = (operation === 'PutItem' ? body.Item : body.Key) ?? {};
          return [{ action, resource: table.arn, context: { ...leading([scalarOf(item[table.partitionKey ?? ''])]), ...extra() } }];
        }
        case 'Query':
        case 'Scan': {
          const table = tableOf(body.TableName);
          const index = typeof body.IndexName === 'string' ? body.IndexName : undefined;
          const resource = index ? `${table.arn}/index/${index}` : table.arn;
          const partitionKey = index ? table.indexPartitionKeys.get(index) : table.partitionKey;
          const keys = operation === 'Query' && partitionKey ? leading([queriedPartition(body, partitionKey)]) : {};
          return [{ action, resource, context: { ...keys, ...extra() } }];
        }
        default:
          return [{ action, resource: tableOf(body.TableName ?? body.TableArn ?? body.ResourceArn).arn }];
      }
    },
    refusal: jsonRefusal('application/x-amz-json-1.0', coralRefusalTypes('com.amazon.coral.validate#ValidationException'), { messageKey: 'Message' }),
  };
}
