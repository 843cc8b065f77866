import fc from 'fast-check';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { readCanonicalEvent } from '../../functions/domain/ingress/event';
import { eventContentDigest, eventIdentityDigest, sha256Hex } from '../../functions/domain/ingress/identity';
import { receiveDelivery, type Outcome, type ReadBody } from '../../functions/domain/ingress/receive';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { memoryTileStore } from '../../functions/ledger-writer/tile-store';
import { StoreUnavailable } from '../../functions/store/errors';
import { eventPk } from '../../functions/store/layout';
import { memoryStores, type MemoryStores } from '../../functions/store/memory';
import { buildEvent } from '../../lib/ingress/emit';
import { loadDocument } from '../../lib/loader/load';

/**
 * A receiver's two writes (the event's claim and the note of its delivery) are sent together
 * (docs/ingress.md#exactly-once-per-event), so a failure may leave either without the other.
 * Seeded sequences of deliveries, each attempt's writes failing one of four ways (both land,
 * only the claim, only the note, neither), against the domain and the pending store in memory:
 * whatever lands, a webhook-id accepts one body, an answer given stays the answer, a 202 always
 * names a stored event of the same content, and every delivery is answered once the store answers.
 */
const SEED = 20_261_207;
const SOURCE = 'service-platform';
const REFERENCE = DEMO_OBJECTS.current;
const ACCEPTS = ['svc.living-object.state-changed.v1', 'svc.living-object.authority-observed.v1'];
const signer = signerFromKey(formatSignerKey('ingress-receive-faults.test/ledger', Buffer.alloc(32, 44)));

type Fault = 'none' | 'claim only' | 'note only' | 'neither';
const FAULTS: Fault[] = ['none', 'claim only', 'note only', 'neither'];
const WEBHOOK_IDS = ['msg_a', 'msg_b', 'msg_c'];

/** Bodies over two identities (one of them with two contents) and a change the rules refuse. */
function bodies(): string[] {
  const at = new Date(Date.now() - 60_000).toISOString();
  const change = (state: string, id: string) => JSON.stringify(buildEvent('svc.living-object.state-changed.v1', REFERENCE, { previousState: 'DELIVERED', state }, at, id));
  return [change('RETURNED', 'e-one'), change('CANCELLED', 'e-one'), change('RETURNED', 'e-two'), change('DELIVERED', 'e-refused')];
}

async function freshStores(): Promise<MemoryStores> {
  const stores = memoryStores();
  const document = demoDocument(new Date(Date.now() - 60 * 60_000));
  document.records = (document.records as Array<{ reference: string }>).filter((r) => r.reference === REFERENCE);
  await loadDocument(document, { stores, signer, tiles: memoryTileStore() });
  return stores;
}

/** The pending store's claimNoted, its writes landing as `fault` says; any fault then fails the call, as a store that stopped answering does. */
function withFaults(stores: MemoryStores, fault: () => Fault): void {
  const pending = stores.pending;
  const claimNoted = pending.claimNoted.bind(pending);
  pending.claimNoted = async (event, unclaimed) => {
    const happening = fault();
    if (happening === 'none') return claimNoted(event, unclaimed);
    if (happening === 'claim only') await pending.claim(event);
    if (happening === 'note only') await pending.noteDelivery(event, eventPk(event.sourceId, event.identity.digest), unclaimed);
    throw new StoreUnavailable(`PutItem (injected: ${happening})`);
  };
}

const summary = (o: Outcome) => (o.status === 202 ? { status: 202, eventId: o.receipt.eventId, webhookId: o.receipt.webhookId } : { status: o.status, code: o.code });

test('whatever a delivery\'s two writes leave, a webhook-id accepts one body, an answer stays, a 202 names its stored event, and every delivery is answered once the store answers', async () => {
  const texts = bodies();
  const reads = texts.map((raw) => ({ ...readCanonicalEvent(raw, ACCEPTS), raw }) as ReadBody & { event: { source: string; id: string }; value: unknown });
  const attempt = fc.record({ webhookId: fc.constantFrom(...WEBHOOK_IDS), body: fc.nat({ max: texts.length - 1 }), fault: fc.constantFrom(...FAULTS) });
  await fc.assert(
    fc.asyncProperty(fc.array(attempt, { minLength: 1, maxLength: 14 }), async (attempts) => {
      const stores = await freshStores();
      let fault: Fault = 'none';
      withFaults(stores, () => fault);
      const receive = async (webhookId: string, body: number) => {
        try {
          return await receiveDelivery(stores, { sourceId: SOURCE, webhookId, bodySha256: sha256Hex(texts[body]), receivedAt: new Date().toISOString() }, reads[body]);
        } catch (error) {
          if (!(error instanceof StoreUnavailable)) throw error;
          return null;
        }
      };
      const first = new Map<string, ReturnType<typeof summary>>();
      const acceptedFirstTime = new Map<string, number>();
      const check = async (webhookId: string, body: number, answer: Awaited<ReturnType<typeof receive>>) => {
        if (!answer) return;
        const key = `${webhookId} ${body}`;
        const now = summary(answer.outcome);
        // An answer given stays the answer (the bodies' rules do not change here: nothing is sequenced),
        // but for the identity first: a refusal becomes what the identity's event says once one is stored,
        // accepted under another delivery (its 202) or with other content (409 EVENT_ID_REUSED).
        const before = first.get(key);
        const identityFirst = before?.status !== 202 && ((now.status === 202 && answer.replayed && now.webhookId !== webhookId) || ('code' in now && now.code === 'EVENT_ID_REUSED'));
        if (before && !identityFirst) expect(now).toEqual(before);
        first.set(key, now);
        if (answer.outcome.status === 202) {
          // A 202 names a stored event of this very content.
          const digest = eventIdentityDigest(reads[body].event);
          const { event } = await stores.pending.lookUp({ sourceId: SOURCE, webhookId }, digest);
          expect(event?.contentSha256).toBe(eventContentDigest(reads[body].value));
          // A webhook-id accepts one body as new.
          if (!answer.replayed) {
            expect(acceptedFirstTime.get(webhookId) ?? body).toBe(body);
            acceptedFirstTime.set(webhookId, body);
          }
        }
      };
      for (const a of attempts) {
        fault = a.fault;
        await check(a.webhookId, a.body, await receive(a.webhookId, a.body));
      }
      // The store answers again: every delivery attempted is answered, consistently with before.
      fault = 'none';
      for (const a of attempts) {
        const answer = await receive(a.webhookId, a.body);
        expect(answer).not.toBeNull();
        await check(a.webhookId, a.body, answer);
      }
      // One event at most per identity, waiting once.
      const waiting = await stores.pending.listWaiting(100);
      expect(new Set(waiting).size).toBe(waiting.length);
      expect(waiting.length).toBeLessThanOrEqual(2);
    }),
    { seed: SEED, numRuns: 200, endOnFailure: true },
  );
});
