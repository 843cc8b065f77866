import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SDK_LOGGER_MIDDLEWARE, withoutSdkLogLines } from '../../functions/aws/sdk-log-lines';
import { storeClient } from '../../functions/store/client';

/**
 * The SDK's logger middleware walks every request and answer through the operation's schema for a
 * log line no logger of this service writes (functions/aws/sdk-log-lines.ts). Every client the
 * functions make goes without it; the name it is removed by is the one the SDK gives it.
 */
const middlewareNames = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().map((line) => line.split(' ')[0]);

test('the SDK names its logger middleware as removed, for each client the functions make, and withoutSdkLogLines removes it and nothing else', () => {
  for (const make of [() => new DynamoDBClient({}), () => new S3Client({}), () => new KMSClient({}), () => new SecretsManagerClient({})]) {
    const stock = make();
    const quiet = withoutSdkLogLines(make());
    expect(middlewareNames(stock)).toContain(SDK_LOGGER_MIDDLEWARE);
    expect(middlewareNames(quiet)).toEqual(middlewareNames(stock).filter((name) => name !== SDK_LOGGER_MIDDLEWARE));
    for (const client of [stock, quiet]) client.destroy();
  }
  expect(middlewareNames(storeClient())).not.toContain(SDK_LOGGER_MIDDLEWARE);
  storeClient().destroy();
});

test('every AWS SDK client made in functions/ is made without the logger middleware', () => {
  const root = path.resolve(__dirname, '../../functions');
  const sources = (readdirSync(root, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }));
  const made = sources.flatMap(({ file, text }) => [...text.matchAll(/(\S*)\(?new (\w+Client)\(/g)].map((m) => ({ file, client: m[2], wrapped: m[1].endsWith('withoutSdkLogLines(') })));
  expect(made.length).toBeGreaterThanOrEqual(5);
  expect(made.filter((m) => !m.wrapped)).toEqual([]);
});
