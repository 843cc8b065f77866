import { storeImplementations } from '../support/embedded-table';
import { newEvent, type Stores } from '../support/store-contracts';

/**
 * The pending store's part for deliveries of many events (functions/store/ports/pending.ts:
 * lookUpBatch, answerOnce), held to the same promises on the table (dynalite) and in memory: the
 * webhook-id and every identity read in one call, in the order asked, more than one request's
 * worth of keys included; a delivery's answer stored once, compare-and-set.
 */
const { implementations: IMPLEMENTATIONS } = storeImplementations('batch-port');

const SOURCE = 'service-platform';
const answer = (webhookId: string, body = `body-of-${webhookId}`) => ({ sourceId: SOURCE, webhookId, bodySha256: body, receivedAt: new Date().toISOString(), status: 200, answer: { batch: 1, items: [] } });

describe.each(IMPLEMENTATIONS)('the pending store for batches, %s', (_name, make) => {
  let stores: Stores;
  beforeEach(async () => (stores = await make()));

  test('lookUpBatch reads the webhook-id and each identity, in the order asked (an identity twice, unknown ones null), beyond 100 keys', async () => {
    const events = Array.from({ length: 120 }, (_, i) => newEvent(`msg_e${i}`, { id: `batch-port-${i}` }));
    await Promise.all(events.filter((_, i) => i % 3 === 0).map((e) => stores.pending.claim(e)));
    const digests = [...events.map((e) => e.identity.digest), events[3].identity.digest, 'digest-unknown'];
    const none = await stores.pending.lookUpBatch({ sourceId: SOURCE, webhookId: 'msg_batch' }, digests);
    expect(none.delivery).toBeNull();
    expect(none.events).toHaveLength(122);
    none.events.slice(0, 120).forEach((e, i) => (i % 3 === 0 ? expect(e).toMatchObject({ contentSha256: `content-batch-port-${i}`, sequencing: 'PENDING' }) : expect(e).toBeNull()));
    expect(none.events[120]).toEqual(none.events[3]);
    expect(none.events[121]).toBeNull();
    await stores.pending.answerOnce(answer('msg_batch'));
    expect((await stores.pending.lookUpBatch({ sourceId: SOURCE, webhookId: 'msg_batch' }, [])).delivery).toMatchObject({ status: 200, answer: { batch: 1 }, bodySha256: 'body-of-msg_batch', eventKey: null });
  });

  test('answerOnce stores a delivery\'s answer once: of twenty at once one stores, the others get what it stored', async () => {
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => stores.pending.answerOnce(answer('msg_once', `body-${i}`))));
    const stored = outcomes.filter((o) => o.stored);
    expect(stored).toHaveLength(1);
    const bodies = new Set(outcomes.flatMap((o) => (o.stored ? [] : [o.earlier.bodySha256])));
    expect(bodies.size).toBe(1);
  });
});
