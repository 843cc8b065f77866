import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { demoDocument } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { readRecordGenesis, readWholeRecord } from '../../functions/store/records';
import { RECORD_FORMATS } from '../../lib/loader/formats';
import { loadDocument, validateRecords } from '../../lib/loader/load';
import { withDerivedRecords } from '../../lib/loader/derive';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { localClient, startLocalService, type LocalService } from '../../lib/local/service';
import { buildEvent, newWebhookId } from '../../lib/ingress/emit';
import { emit } from '../support/ingress';

/**
 * A record loaded from a file is item for item what the same events sent through the receivers
 * make (docs/ingress.md#loads-and-events), for every demo record and the status lists derived from
 * them: one table gets each record whole from a load; another gets each record's first entry from a
 * load (no event creates a record), then every later history entry as the signed event that states
 * it, through the receivers over HTTP, integrated by the sequencer.
 *
 * What a file can state that no event can is written as events state it, on both sides: an
 * observation's own source label (an event from the authority's feed is the authority's
 * observation), a credential's confirmations (no event type carries them), and `anchored: false`
 * (every version an event makes is logged). Evidence depends on where a version sits in its log,
 * and the two tables are two logs: it is compared by what it proves (the version, the origin, the
 * hash of the logged content, and that it verifies against its own signed checkpoint), not by its
 * leaf index, tree size, inclusion proof and checkpoint. Which writer made an entry (the event's
 * identity on it) and the genesis item's bookkeeping (a load's digest, the events' mark and
 * set-aside list) are not the record.
 */
const ANCHOR = new Date();
const signer = signerFromKey(formatSignerKey('load-equals-events.test/ledger', Buffer.alloc(32, 23)));
const AS_LOADED = 'as-loaded';
const AS_RECEIVED = 'as-received';
const SENT_AT_ONCE = 16;

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

let store: EmbeddedStore;
let client: DynamoDBClient;
let service: LocalService;
let dir: string;

/**
 * Sends every later history entry of every record as its event, in rounds: the receivers judge
 * an event against the record as sequenced, so what follows a change of state or status waits
 * until the change is integrated. A round is every event up to the next change and that change,
 * sent together; the sequencer then integrates the round in one batch (so whatever order they
 * arrived in, each record's new entries are placed and numbered in the order of their instants,
 * as a load places them).
 */
async function sendHistoriesAsEvents(): Promise<Array<[string, number, string]>> {
  const events = records.flatMap((record) => {
    const format = RECORD_FORMATS[record.kind];
    const beginning = format.begin(format.schema.parse(record));
    return beginning.events!.map((event) => ({ event, change: event.type.endsWith('-changed.v1') }));
  });
  events.sort((a, b) => Date.parse(a.event.at) - Date.parse(b.event.at));
  const rounds: (typeof events)[] = [[]];
  for (const e of events) {
    rounds[rounds.length - 1].push(e);
    if (e.change) rounds.push([]);
  }
  const answers: Array<[string, number, string]> = [];
  for (const round of rounds) {
    for (let at = 0; at < round.length; at += SENT_AT_ONCE) {
      await Promise.all(
        round.slice(at, at + SENT_AT_ONCE).map(async ({ event }) => {
          // The payload's fields as the sender writes them; the instant it states is the event's own.
          const fields = Object.fromEntries(Object.entries(event.data).flatMap(([name, value]) => (name.endsWith('At') ? [] : [[name, value === null ? 'null' : String(value)]])));
          // A sender retries a 503 (the store did not answer in time, on a busy machine) under the same webhook-id.
          const body = JSON.stringify(buildEvent(event.type, event.reference, fields, event.at));
          const id = newWebhookId();
          let res = await emit(service.url, event.type, event.reference, fields, { body, id });
          for (let retry = 0; res.status === 503 && retry < 5; retry++) res = await emit(service.url, event.type, event.reference, fields, { body, id });
          answers.push([event.reference, res.status, res.body.effect ?? res.body.detail]);
        }),
      );
    }
    await sequenceAll({ client, table: AS_RECEIVED, signer, tiles: directoryTileStore(path.join(dir, 'received-tiles')), batchSize: events.length });
  }
  return answers;
}

/** A record as stored, in comparable form: its entries (evidence by what it proves) and its kind and highest version. */
async function storedRecord(table: string, reference: string) {
  const whole = await readWholeRecord(client, table, reference);
  const genesis = await readRecordGenesis(client, table, reference);
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
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
  dir = await mkdtemp(path.join(os.tmpdir(), 'load-equals-events-'));
  await loadDocument({ records }, { client, table: AS_LOADED, createTable: true, signer, tiles: directoryTileStore(path.join(dir, 'loaded-tiles')) });
  await loadDocument({ records: records.map(firstEntryOf) }, { client, table: AS_RECEIVED, createTable: true, signer, tiles: directoryTileStore(path.join(dir, 'received-tiles')) });
  service = await startLocalService({ port: 0, endpoint: store.endpoint, table: AS_RECEIVED, sequencer: false, verifierKeys: signer.verifierKey });
}, 120_000);
afterAll(async () => {
  await service?.close();
  client?.destroy();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

let answers: Array<[string, number, string]>;

test('every later history entry of every demo record is accepted by the receivers as the event that states it', async () => {
  answers = await sendHistoriesAsEvents();
  expect(answers.length).toBeGreaterThan(3000);
  expect(answers.filter(([, status, effect]) => status !== 202 || !['ADVANCES_CURRENT_STATE', 'CONFIRMS_CURRENT_STATE'].includes(effect))).toEqual([]);
}, 300_000);

describe.each(references.map((r) => [r]))('%s', (reference) => {
  test('as loaded from the file is, item for item, as made by its events', async () => {
    expect(answers).toBeDefined();
    const loaded = await storedRecord(AS_LOADED, reference);
    const received = await storedRecord(AS_RECEIVED, reference);
    expect(loaded.entries.length).toBeGreaterThan(0);
    // Evidence that verifies, but for the demo proof whose stored content was altered after it was logged.
    expect(loaded.entries.every((e) => e.head.evidence?.verifies === (reference !== DEMO_PROOFS.tampered))).toBe(true);
    expect(received).toEqual(loaded);
  });
});
