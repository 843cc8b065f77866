/**
 * npm run store -- [--port P] [--data DIR]: a DynamoDB-compatible store (dynalite) on its own,
 * in memory or on disk, for `npm start -- --endpoint URL` and `npm run load -- --endpoint URL`.
 * It prints its endpoint and runs until stopped.
 */
import { parseArgs } from 'node:util';
import { startEmbeddedStore } from '../lib/local/embedded-store';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8000' }, data: { type: 'string' } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port must be a port number, not ${values.port}`);
  const store = await startEmbeddedStore({ port, dataDir: values.data });
  console.log(`store listening on ${store.endpoint} (${values.data ? `data in ${values.data}` : 'in memory'})`);
  const stop = () => void store.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(`could not start the store: ${(error as Error).message}`);
  process.exit(1);
});
