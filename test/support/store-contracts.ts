import type { LedgerStores, PublishedLedger } from '../../functions/store/ports/ledger';
import type { NewEvent, PendingStore } from '../../functions/store/ports/pending';
import type { RecordChange, RecordStore } from '../../functions/store/ports/records';

/**
 * The storage ports' promises, written once as tests and run against every implementation
 * (test/integration/store-ports.test.ts): the DynamoDB ones on dynalite and the in-memory ones, so
 * the in-memory stores the domain and sequencer tests run on cannot drift from the table.
 */
export interface Stores {
  records: RecordStore;
  pending: PendingStore;
  ledger: LedgerStores & { published: PublishedLedger };
}

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 8, minute)).toISOString();
const head = (reference: string, version: number, state: string) => ({ kind: 'OBJECT', reference, version, content: { reference, state, version }, evidence: null });

/** A record written whole, as a load writes it: three entries (a change, an observation, a change). */
export function wholeRecord(reference: string): RecordChange {
  const v1 = head(reference, 1, 'PLACED');
  const v2 = head(reference, 2, 'SHIPPED');
  return {
    reference,
    kind: 'OBJECT',
    entries: [
      { id: null, at: at(0), entry: { at: at(0), type: 'STATE_CHANGED', state: 'PLACED' }, view: { state: 'PLACED' }, head: v1 },
      { id: null, at: at(10), entry: { at: at(10), type: 'AUTHORITY_OBSERVED', state: 'PLACED' }, view: { state: 'PLACED' }, head: v1 },
      { id: null, at: at(20), entry: { at: at(20), type: 'STATE_CHANGED', state: 'SHIPPED' }, view: { state: 'SHIPPED' }, head: v2 },
    ],
    genesis: { highestVersion: 2, loadDigest: 'digest-1' },
  };
}

export { at as minute };

let identities = 0;
/** An accepted event as a receiver claims it (a fresh identity unless `id` is given). */
export function newEvent(webhookId: string, options: { id?: string; content?: string; receivedAt?: string; sourceId?: string } = {}): NewEvent {
  const id = options.id ?? `event-${identities++}`;
  return {
    sourceId: options.sourceId ?? 'service-platform',
    webhookId,
    bodySha256: `body-of-${webhookId}`,
    receivedAt: options.receivedAt ?? new Date().toISOString(),
    status: 202,
    answer: { status: 202, receipt: { webhookId } },
    identity: { source: '/v1/objects', id, digest: `digest-${id}`, contentSha256: options.content ?? `content-${id}` },
    event: { raw: JSON.stringify({ id, data: {} }), type: 'svc.living-object.state-changed.v1', reference: 'ORD-1', at: at(30), effect: 'ADVANCES_CURRENT_STATE' },
  };
}
