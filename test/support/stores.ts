import type { LeafStore } from '../../functions/store/ports/ledger';
import type { RecordStore } from '../../functions/store/ports/records';

/** The hashes of leaves 0..treeSize-1, in order (the leaf store read a page at a time). */
export async function leavesOf(leaves: LeafStore, treeSize: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  await leaves.forEachLeaf(treeSize, (leaf) => void out.push(leaf));
  return out;
}

/** Every entry of a record, in store order (strongly consistent); undefined when it has none. */
export async function wholeRecord(records: RecordStore, reference: string) {
  return (await records.readTimelines([{ reference, from: null }])).get(reference)?.entries;
}

/** Stores an event as a receiver that accepted it does (its claim under its identity, waiting for the sequencer); its key. */
export async function claimAccepted(
  pending: import('../../functions/store/ports/pending').PendingStore,
  delivery: { sourceId?: string; webhookId: string; raw: string; receivedAt?: string; effect?: string },
): Promise<string> {
  const { eventContentDigest, eventIdentityDigest } = await import('../../functions/domain/ingress/identity');
  const body = JSON.parse(delivery.raw) as { source: string; id: string; type: string; subject: string; data: { changedAt?: string; observedAt?: string } };
  const claim = await pending.claim({
    sourceId: delivery.sourceId ?? 'service-platform',
    webhookId: delivery.webhookId,
    bodySha256: delivery.webhookId,
    receivedAt: delivery.receivedAt ?? new Date().toISOString(),
    status: 202,
    answer: {},
    identity: { source: body.source, id: body.id, digest: eventIdentityDigest(body), contentSha256: eventContentDigest(body) },
    event: { raw: delivery.raw, type: body.type, reference: body.subject, at: (body.data.changedAt ?? body.data.observedAt)!, effect: delivery.effect ?? 'ADVANCES_CURRENT_STATE' },
  });
  if (!claim.claimed) throw new Error(`the event of ${delivery.webhookId} was claimed before (${claim.stored.key})`);
  return claim.key;
}

/**
 * Where each event stands (PENDING, SEQUENCED, SET_ASIDE; undefined when none is stored under the
 * key), read as a receiver reads it: by its sender and identity digest, which its key names
 * (layout.ts eventPk). An integrated event is no longer read by readEvents (only its claim is kept).
 */
export async function sequencingOf(pending: import('../../functions/store/ports/pending').PendingStore, keys: readonly string[]): Promise<(string | undefined)[]> {
  return Promise.all(
    keys.map(async (key) => {
      const [, sourceId, digest] = /^P#(.+)#event:([0-9a-f]+)$/.exec(key) ?? [];
      if (!sourceId) throw new Error(`${key} is not an event's key`);
      return (await pending.lookUp({ sourceId, webhookId: '-' }, digest)).event?.sequencing;
    }),
  );
}
