import { randomUUID } from 'node:crypto';
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { GENESIS_SK } from '../../functions/store/layout';

/** Where the sequencer's tests run their Lambda functions: the table, its region, the account. */
export interface LambdaPlace {
  table: string;
  region: string;
}

const ACCOUNT = '111122223333';

/** A Lambda context for the function `name`, whose deadline is `remainingMs` from now. */
export function lambdaContext(place: LambdaPlace, name: string, options: { remainingMs?: number; memoryMb?: number } = {}): Context {
  const deadline = Date.now() + (options.remainingMs ?? 60_000);
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${place.region}:${ACCOUNT}:function:${name}`,
    memoryLimitInMB: String(options.memoryMb ?? 1024),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: '2026/12/07/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The stream batch Lambda hands the sequencer for these new pending items (NEW_IMAGE, after the INSERT filter). */
export async function streamEvent(client: DynamoDBClient, place: LambdaPlace, keys: readonly string[]): Promise<DynamoDBStreamEvent> {
  const records = [];
  for (const [i, key] of keys.entries()) {
    const item = (await client.send(new GetItemCommand({ TableName: place.table, Key: { pk: { S: key }, sk: { S: GENESIS_SK } }, ConsistentRead: true }))).Item!;
    records.push({
      eventID: randomUUID().replace(/-/g, ''),
      eventName: 'INSERT' as const,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: place.region,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys: { pk: { S: key }, sk: { S: GENESIS_SK } },
        NewImage: item as Record<string, never>,
        // Stream sequence numbers are decimal strings of up to 40 digits, rising along a shard.
        SequenceNumber: (4_000_000_000_000_000_000n + BigInt(i)).toString(),
        SizeBytes: JSON.stringify(item).length,
        StreamViewType: 'NEW_IMAGE' as const,
      },
      eventSourceARN: `arn:aws:dynamodb:${place.region}:${ACCOUNT}:table/${place.table}/stream/2026-11-20T12:00:00.000`,
    });
  }
  return { Records: records };
}
