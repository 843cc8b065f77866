/**
 * The yardsticks. A function that reads the table is compared with a bundle holding only the
 * DynamoDB client and its Query command, built with the same options, whose handler creates the
 * client on first use and sends one Query (the floor for "answer from the table": nothing of ours
 * in it). A function that reads nothing is compared with a bare Node.js process loading an empty
 * module (the floor for any function at all).
 */
export const BASELINE_SOURCE = `
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
let client: DynamoDBClient | undefined;
export const handler = async () => {
  client ??= new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT || undefined });
  const out = await client.send(new QueryCommand({
    TableName: process.env.TABLE_NAME,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': { S: 'baseline' } },
    Limit: 1,
  }));
  return { statusCode: 200, body: String(out.Count ?? 0) };
};
`;
