import { randomUUID } from 'node:crypto';
import { demoDocument } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { forgetIngressKeys } from '../../functions/config/ingress-keys';
import { INGRESS_SOURCES } from '../../functions/contract/ingress-values';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { receive } from '../../functions/handlers/ingress-receiver';
import type { HttpRequest } from '../../functions/http/request';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { memoryTileStore } from '../../functions/ledger-writer/tile-store';
import { memoryStores, type MemoryStores } from '../../functions/store/memory';
import { buildEvent, devSecrets, newWebhookId, senderOf, signedHeaders } from '../../lib/ingress/emit';
import { RECORD_FORMATS } from '../../lib/loader/formats';
import { withDerivedRecords } from '../../lib/loader/derive';
import { loadDocument, validateRecords } from '../../lib/loader/load';
import { DEV_INGRESS_SECRETS_FILE } from '../../lib/local/service';

/**
 * A record loaded from a file is item for item what the same events sent through the receivers
 * make (docs/ingress.md#loads-and-events), for every demo record and the status lists derived from
 * them: one store gets each record whole from a load; another gets each record's first entry from
 * a load (no event creates a record), then every later history entry as the signed event that
 * states it, through a receiver's own code (source, keys, Standard Webhooks signature, body,
 * exactly-once, the kind's rules: functions/handlers/ingress-receiver.ts receive), integrated by
 * the sequencer. Both on the stores in memory, which keep the table's promises
 * (test/integration/store-ports.test.ts); the receivers over HTTP on DynamoDB:
 * test/e2e/ingress.test.ts and test/integration/transitions-both-ways.test.ts.
 *
 * What a file can state that no event can is written as events state it, on both sides: an
 * observation's own source label (an event from the authority's feed is the authority's
 * observation), a credential's confirmations (no event type carries them), and `anchored: false`
 * (every version an event makes is logged). Evidence depends on where a version sits in its log,
 * and the two stores hold two logs: it is compared by what it proves (the version, the origin, the
 * hash of the logged content, and that it verifies against its own signed checkpoint), not by its
 * leaf index, tree size, inclusion proof and checkpoint. Which writer made an entry (the event's
 * identity on it) and the genesis's bookkeeping (a load's digest, the events' mark and set-aside
 * list) are not the record.
 */
const ANCHOR = new Date();
const signer = signerFromKey(formatSignerKey('load-equals-events.test/ledger', Buffer.alloc(32, 23)));
const secrets = devSecrets(DEV_INGRESS_SECRETS_FILE);

type Input = Record<string, any>;

/** A demo record as events can state it (see above). */
function asEventsStateIt(record: Input): Input {
  if (record.kind === 'OBJECT') {
    return { ...record, history: record.history.map(({ anchored: _anchored, ...h }: Input) => (h.type === 'AUTHORITY_OBSERVED' ? { ...h, source: record.authority } : h)) };
  }
  if (record.kind === 'CREDENTIAL') return { ...record, history: record.history.filter((h: Input) => h.type !== 'AUTHORITY_OBSERVED') };
  return record;
}

/** How a record begins: its first entry only (a proof: its issuance, no snapshot yet). */
const firstEntryOf = (record: Input): Input => (record.kind === 'COMMERCIAL_PROOF' ? { ...record, synchronizations: [] } : { ...record, history: record.history.slice(0, 1) });

const records = (demoDocument(ANCHOR).records as Input[]).map(asEventsStateIt);
const references = withDerivedRecords(validateRecords({ records })).map((r) => r.reference);

let loaded: MemoryStores;
let received: MemoryStores;
const receivedTiles = memoryTileStore();

/** Signs an event as its source does (the development key) and hands it to the receiver that takes it. */
async function send(type: string, reference: string, fields: Record<string, string>, at: string) {
  const { sourceId, path } = senderOf(type);
  const body = JSON.stringify(buildEvent(type, reference, fields, at));
  const request: HttpRequest = {
    method: 'POST',
    path,
    endpoint: path,
    pathParameters: { sourceId },
    query: {},
    headers: { 'content-type': 'application/cloudevents+json', ...signedHeaders(body, [secrets[sourceId]], { id: newWebhookId() }) },
    body,
    correlationId: randomUUID(),
    baseUrl: 'http://127.0.0.1',
  };
  const answer = await receive(request, INGRESS_SOURCES[sourceId].receiver, sourceId, received);
  return answer as { status: number; body: { effect: string } };
}

/**
 * Sends every later history entry of every record as its event, in rounds: the receivers judge
 * an event against the record as sequenced, so what follows a change of state or status waits
 * until the change is integrated. A round is every event up to the next change and that change;
 * the sequencer then integrates the round in one batch (so each record's new entries are placed
 * and numbered in the order of their instants, as a load places them).
 */
async function sendHistoriesAsEvents(): Promise<Array<[string, number, string]>> {
  const events = records.flatMap((record) => {
    const format = RECORD_FORMATS[record.kind];
    return format.begin(format.schema.parse(record)).events!.map((event) => ({ event, change: event.type.endsWith('-changed.v1') }));
  });
  events.sort((a, b) => Date.parse(a.event.at) - Date.parse(b.event.at));
  const rounds: (typeof events)[] = [[]];
  for (const e of events) {
    rounds[rounds.length - 1].push(e);
    if (e.change) rounds.push([]);
  }
  const answers: Array<[string, number, string]> = [];
  for (const round of rounds) {
    for (const { event } of round) {
      // The payload's fields as the sender writes them; the instant it states is the event's own.
      const fields = Object.fromEntries(Object.entries(event.data).flatMap(([name, value]) => (name.endsWith('At') ? [] : [[name, value === null ? 'null' : String(value)]])));
      const res = await send(event.type, event.reference, fields, event.at);
      answers.push([event.reference, res.status, res.body.effect]);
    }
    await sequenceAll({ ...received, signer, tiles: receivedTiles, batchSize: events.length });
  }
  return answers;
}

/** A record as stored, in comparable form: its entries (evidence by what it proves) and its kind and highest version. */
async function storedRecord(stores: MemoryStores, reference: string) {
  const whole = (await stores.records.readTimelines([{ reference, from: null }])).get(reference);
  const genesis = (await stores.records.readGeneses([reference])).get(reference);
  const entries = (whole?.entries ?? []).map(({ id, at, entry, view, head }) => {
    const { evidence, ...rest } = head;
    const proves = evidence && {
      format: evidence.format,
      version: evidence.version,
      origin: evidence.origin,
      leafHash: evidence.leafHash,
      verifies: verifyEvidence(head.content, evidence as never, [signer.verifierKey]).ok,
    };
    return { id, at, entry, view, head: { ...rest, evidence: proves } };
  });
  return { kind: genesis?.kind, highestVersion: genesis?.highestVersion, entries };
}

beforeAll(async () => {
  process.env.INGRESS_SECRETS_FILE = DEV_INGRESS_SECRETS_FILE;
  forgetIngressKeys();
  loaded = memoryStores();
  received = memoryStores();
  await loadDocument({ records }, { stores: loaded, signer, tiles: memoryTileStore() });
  await loadDocument({ records: records.map(firstEntryOf) }, { stores: received, signer, tiles: receivedTiles });
});

let answers: Array<[string, number, string]>;

test('every later history entry of every demo record is accepted by the receivers as the event that states it', async () => {
  answers = await sendHistoriesAsEvents();
  expect(answers.length).toBeGreaterThan(3000);
  expect(answers.filter(([, status, effect]) => status !== 202 || !['ADVANCES_CURRENT_STATE', 'CONFIRMS_CURRENT_STATE'].includes(effect))).toEqual([]);
}, 120_000);

describe.each(references.map((r) => [r]))('%s', (reference) => {
  test('as loaded from the file is, item for item, as made by its events', async () => {
    expect(answers).toBeDefined();
    const fromFile = await storedRecord(loaded, reference);
    const fromEvents = await storedRecord(received, reference);
    expect(fromFile.entries.length).toBeGreaterThan(0);
    // Evidence that verifies, but for the demo proof whose stored content was altered after it was logged.
    expect(fromFile.entries.every((e) => e.head.evidence?.verifies === (reference !== DEMO_PROOFS.tampered))).toBe(true);
    expect(fromEvents).toEqual(fromFile);
  });
});
