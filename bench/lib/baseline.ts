/**
 * The yardsticks. A function that reads the table is compared with a bundle holding only the
 * DynamoDB client and its Query command, built with the same options, whose handler creates the
 * client on first use and sends one Query (the floor for "answer from the table": nothing of ours
 * in it). A function that reads nothing is compared with a bare Node.js process loading an empty
 * module (the floor for any function at all).
 */
/** The stock DynamoDB client, made on first use, and the one Query both table yardsticks answer with. */
const ONE_QUERY = `
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
let client: DynamoDBClient | undefined;
const oneQuery = async () => {
  client ??= new DynamoDBClient({});
  const out = await client.send(new QueryCommand({
    TableName: process.env.TABLE_NAME,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': { S: 'baseline' } },
    Limit: 1,
  }));
  return out.Count ?? 0;
};
`;

export const BASELINE_SOURCE = `${ONE_QUERY}
export const handler = async () => ({ statusCode: 200, body: String(await oneQuery()) });
`;

/**
 * The design card's yardsticks: the runtime the service was specified with (@middy/core and the
 * Powertools Logger attached with injectLambdaContext, one INFO line per answer, as every function
 * logs), built with the same options. The card baseline answers one Query with the stock DynamoDB
 * client (a function that reads the table can start no faster than the card allows); the card
 * floor answers without the SDK (the same for a function that reads nothing).
 */
const CARD_RUNTIME = `
import middy from '@middy/core';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
const logger = new Logger({ serviceName: 'card-yardstick' });
`;

export const CARD_BASELINE_SOURCE = `${CARD_RUNTIME}${ONE_QUERY}
export const handler = middy(async () => {
  const count = await oneQuery();
  logger.info('answered', { status: 200 });
  return { statusCode: 200, body: String(count) };
}).use(injectLambdaContext(logger, { resetKeys: true }));
`;

export const CARD_FLOOR_SOURCE = `${CARD_RUNTIME}
export const handler = middy(async () => {
  logger.info('answered', { status: 200 });
  return { statusCode: 200, body: '{}' };
}).use(injectLambdaContext(logger, { resetKeys: true }));
`;

/** @middy/core alone: a middy handler answering, no logger. */
export const MIDDY_ONLY_SOURCE = `
import middy from '@middy/core';
export const handler = middy(async () => ({ statusCode: 200, body: '{}' }));
`;

/** The Powertools Logger alone: made, given the Lambda context and one INFO line per answer, no middy. */
export const POWERTOOLS_ONLY_SOURCE = `
import { Logger } from '@aws-lambda-powertools/logger';
const logger = new Logger({ serviceName: 'card-yardstick' });
export const handler = async (_event: unknown, context: any) => {
  logger.addContext(context);
  logger.info('answered', { status: 200 });
  return { statusCode: 200, body: '{}' };
};
`;

/** The empty handler module, as a bundle: what a bundle weighs before anything is in it. */
export const EMPTY_SOURCE = `export const handler = async () => ({ statusCode: 200, body: '{}' });`;
