/**
 * npm run emit -- <type> <reference> [field=value ...] [--url URL] [--secrets FILE] [--id WEBHOOK_ID] [--event-id ID --at INSTANT] [--batch N]
 * npm run emit -- --file FILE [--source SOURCE_ID] [--url URL] [--secrets FILE] [--id WEBHOOK_ID]
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
 * Many events in one delivery (CloudEvents' JSON batch format, application/cloudevents-batch+json,
 * docs/ingress.md#many-events-in-one-delivery): --batch N sends N events of <type> about <reference>
 * (each its own id, instants 1 ms apart, the last now) signed once; --file FILE sends the file's
 * bytes as they are, a JSON array of events, to the receiver of its first event's type (or of
 * --source), signed once. A batch's answer lists each event's result.
 *
 *   npm run emit -- svc.living-object.authority-observed.v1 WTY-2026-0003 objectType=WARRANTY state=ACTIVE --batch 100
 *   npm run emit -- --file events.json
 *
 * The service: --url, else SERVICE_URL, else http://127.0.0.1:$PORT (the port `npm start` reads),
 * else port 3000.
 *
 * Types: the canonical event types a source sends (functions/contract/ingress.ts). Exit status:
 * 0 accepted (202; a batch: 200 with every event accepted or already stored), 1 refused (a batch:
 * any event refused, or the delivery), 2 could not run.
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { INGRESS_BATCH_MAX_EVENTS, INGRESS_BATCH_MEDIA_TYPE, INGRESS_SOURCES, isIngressSource, LIFECYCLE_SOURCE_ID } from '../functions/contract/ingress';
import { buildBatch, buildEvent, deliver, devSecrets, senderOf, signedHeaders } from '../lib/ingress/emit';
import { defaultServiceUrl } from '../lib/local/data-dir';
import { DEV_INGRESS_SECRETS_FILE } from '../lib/local/service';

const USAGE = `usage: npm run emit -- <type> <reference> [field=value ...] [--url ${defaultServiceUrl()}] [--secrets FILE] [--id WEBHOOK_ID] [--event-id ID] [--at INSTANT] [--batch N]
       npm run emit -- --file FILE [--source SOURCE_ID] [--url URL] [--secrets FILE] [--id WEBHOOK_ID]
--batch N: N events (1 to ${INGRESS_BATCH_MAX_EVENTS}) in one delivery; --file: a JSON array of events sent as one delivery (${INGRESS_BATCH_MEDIA_TYPE})
types: ${Object.values(INGRESS_SOURCES).flatMap((s) => s.accepts).join(', ')}`;

interface Delivery {
  sourceId: string;
  path: string;
  body: string;
  batch: boolean;
}

type Options = Record<string, string | boolean | undefined>;

/** The delivery the arguments describe: one event, N of them (--batch), or a file's array (--file); or what is wrong. */
function deliveryOf(values: Options, positionals: string[]): Delivery | string {
  if (typeof values.file === 'string') {
    let body: string;
    let events: unknown;
    try {
      body = readFileSync(values.file, 'utf8');
      events = JSON.parse(body);
    } catch (error) {
      return `--file ${values.file}: ${(error as Error).message}`;
    }
    if (!Array.isArray(events)) return `--file ${values.file} is not a JSON array of events`;
    const sourceId = typeof values.source === 'string' ? values.source : senderOf(String((events[0] as { type?: unknown } | undefined)?.type ?? '')).sourceId;
    if (!isIngressSource(sourceId)) return `--source: no source '${sourceId}'; known: ${Object.keys(INGRESS_SOURCES).join(', ')}`;
    return { sourceId, path: sourceId === LIFECYCLE_SOURCE_ID ? '/v1/lifecycle/events' : `/v1/webhooks/${sourceId}`, body, batch: true };
  }
  const [type, reference, ...pairs] = positionals;
  if (!type || !reference) return USAGE;
  const fields: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) return `not field=value: ${pair}\n${USAGE}`;
    fields[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  if (typeof values.at === 'string' && Number.isNaN(Date.parse(values.at))) return `--at is not an instant: ${values.at}\n${USAGE}`;
  const { sourceId, path } = senderOf(type);
  if (values.batch === undefined) return { sourceId, path, body: JSON.stringify(buildEvent(type, reference, fields, values.at as string | undefined, values['event-id'] as string | undefined)), batch: false };
  const count = Number(values.batch);
  if (!Number.isInteger(count) || count < 1) return `--batch is not a number of events: ${values.batch}\n${USAGE}`;
  const last = typeof values.at === 'string' ? new Date(values.at) : new Date();
  return { sourceId, path, body: JSON.stringify(buildBatch(type, reference, fields, count, last)), batch: true };
}

/** A batch's answer in a line per event, then whether every event was accepted or already stored. */
function printBatch(body: { items?: Array<{ index: number; result: string; eventId?: string; problem?: { code: string; detail: string } }> }): boolean {
  for (const item of body.items ?? []) console.log(`  ${item.index}: ${item.result}${item.eventId ? ` ${item.eventId}` : ''}${item.problem ? ` ${item.problem.code}: ${item.problem.detail}` : ''}`);
  return (body.items ?? []).every((i) => i.result === 'ACCEPTED' || i.result === 'ALREADY_STORED');
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      secrets: { type: 'string', default: DEV_INGRESS_SECRETS_FILE },
      id: { type: 'string' },
      'event-id': { type: 'string' },
      at: { type: 'string' },
      batch: { type: 'string' },
      file: { type: 'string' },
      source: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const delivery = values.help ? USAGE : deliveryOf(values, positionals);
  if (typeof delivery === 'string') {
    console.error(delivery);
    return 2;
  }
  const { sourceId, path, body, batch } = delivery;
  const secret = devSecrets(values.secrets!)[sourceId];
  if (!secret) {
    console.error(`no whsec_ secret for source ${sourceId} in ${values.secrets}`);
    return 2;
  }
  const headers: Record<string, string> = { ...(batch ? { 'content-type': INGRESS_BATCH_MEDIA_TYPE } : {}), ...signedHeaders(body, [secret], values.id ? { id: values.id } : {}) };
  const url = (values.url ?? defaultServiceUrl()).replace(/\/+$/, '');
  console.log(`POST ${url}${path}  (source ${sourceId}, webhook-id ${headers['webhook-id']}${batch ? `, a batch, ${Buffer.byteLength(body)} bytes` : ''})`);
  console.log(batch && body.length > 2000 ? `${body.slice(0, 2000)}...` : body);
  let res;
  try {
    res = await deliver(url, path, body, headers);
  } catch (error) {
    console.error(unreachable(url, values.url === undefined, error));
    return 2;
  }
  console.log(`-> ${res.status}${res.headers.get('webhook-replayed') ? ' (replayed: this delivery, or this event under another webhook-id, was answered before)' : ''}`);
  console.log(typeof res.body === 'string' ? res.body : JSON.stringify(res.body, null, 2));
  if (batch && res.status === 200) return printBatch(res.body) ? 0 : 1;
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
