/**
 * npm run emit -- <type> <reference> [field=value ...] [--url URL] [--secrets FILE] [--id WEBHOOK_ID] [--event-id ID --at INSTANT]
 *
 * Signs and sends one canonical event to a running service, as its source would (like a payment
 * provider's CLI trigger): builds the CloudEvents 1.0 event of <type> about <reference> (instants
 * set to now, `field=value` pairs override payload fields; `null` is null), signs it with Standard
 * Webhooks v1 using the development secret of the type's source (fixtures/ingress-dev-secrets.json,
 * which only the local host trusts), POSTs it to its receiver and prints the answer.
 *
 *   npm run emit -- svc.living-object.state-changed.v1 ORD-2026-0001 previousState=DELIVERED state=RETURNED
 *   npm run emit -- svc.living-object.authority-observed.v1 WTY-2026-0003 objectType=WARRANTY state=ACTIVE
 *   npm run emit -- svc.commercial-proof.source-snapshot.v1 PRF-2026-0105 sourceState=DELIVERED
 *
 * --id reuses a webhook-id (a retry of a delivery); --event-id and --at fix the CloudEvents id and
 * the instant the event states, so the same event can be sent again under a new webhook-id (a
 * replay: answered as its first delivery) or another event under a used id (409 EVENT_ID_REUSED).
 *
 * The service: --url, else SERVICE_URL, else http://127.0.0.1:$PORT (the port `npm start` reads),
 * else port 3000.
 *
 * Types: the canonical event types a source sends (functions/contract/ingress.ts). Exit status:
 * 0 accepted (202), 1 refused, 2 could not run.
 */
import { parseArgs } from 'node:util';
import { INGRESS_SOURCES } from '../functions/contract/ingress';
import { buildEvent, deliver, devSecrets, senderOf, signedHeaders } from '../lib/ingress/emit';
import { defaultServiceUrl } from '../lib/local/data-dir';
import { DEV_INGRESS_SECRETS_FILE } from '../lib/local/service';

const USAGE = `usage: npm run emit -- <type> <reference> [field=value ...] [--url ${defaultServiceUrl()}] [--secrets FILE] [--id WEBHOOK_ID] [--event-id ID] [--at INSTANT]
types: ${Object.values(INGRESS_SOURCES).flatMap((s) => s.accepts).join(', ')}`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      secrets: { type: 'string', default: DEV_INGRESS_SECRETS_FILE },
      id: { type: 'string' },
      'event-id': { type: 'string' },
      at: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const [type, reference, ...pairs] = positionals;
  if (values.help || !type || !reference) {
    console.error(USAGE);
    return 2;
  }
  const fields: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      console.error(`not field=value: ${pair}\n${USAGE}`);
      return 2;
    }
    fields[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const { sourceId, path } = senderOf(type);
  const secret = devSecrets(values.secrets!)[sourceId];
  if (!secret) {
    console.error(`no whsec_ secret for source ${sourceId} in ${values.secrets}`);
    return 2;
  }
  if (values.at !== undefined && Number.isNaN(Date.parse(values.at))) {
    console.error(`--at is not an instant: ${values.at}\n${USAGE}`);
    return 2;
  }
  const body = JSON.stringify(buildEvent(type, reference, fields, values.at, values['event-id']));
  const headers = signedHeaders(body, [secret], values.id ? { id: values.id } : {});
  const url = (values.url ?? defaultServiceUrl()).replace(/\/+$/, '');
  console.log(`POST ${url}${path}  (source ${sourceId}, webhook-id ${headers['webhook-id']})`);
  console.log(body);
  let res;
  try {
    res = await deliver(url, path, body, headers);
  } catch (error) {
    console.error(unreachable(url, values.url === undefined, error));
    return 2;
  }
  console.log(`-> ${res.status}${res.headers.get('webhook-replayed') ? ' (replayed: this delivery, or this event under another webhook-id, was answered before)' : ''}`);
  console.log(typeof res.body === 'string' ? res.body : JSON.stringify(res.body, null, 2));
  return res.status === 202 ? 0 : 1;
}

/**
 * What a failed POST means for the person who ran emit: fetch says only "fetch failed", its cause
 * says why (a refused connection: nothing listens there), and where the URL came from says what to
 * change.
 */
function unreachable(url: string, defaulted: boolean, error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code === 'ECONNREFUSED' ? 'nothing listens there' : (cause?.message ?? (error as Error).message);
  const from = !defaulted ? 'given with --url' : process.env.SERVICE_URL ? 'from SERVICE_URL' : process.env.PORT ? 'from PORT' : 'the default: neither --url, SERVICE_URL nor PORT was given';
  return `emit: could not reach ${url} (${from}): ${why}.
Is npm start running? It prints the URL it listens on; pass it with --url URL, or export the same PORT in this terminal.`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`emit: ${(error as Error).message}`);
    process.exit(2);
  },
);
