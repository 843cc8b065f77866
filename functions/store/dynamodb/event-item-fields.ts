import type { AttributeValue } from '@aws-sdk/client-dynamodb';

type Item = Record<string, AttributeValue>;

/**
 * What an accepted event's item does not store twice (pending-items.ts), so that the item of a
 * state change stays within one write unit: DynamoDB charges a write by the item's whole size,
 * one unit per 1 KB, and every attribute's name and value count
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html,
 * docs/ingress.md#what-an-accepted-event-stores).
 *
 * - The fields the raw event states (its CloudEvents source, id, type, subject, and the instant in
 *   its data) are read back from the raw event; an attribute is stored only when the receiver read
 *   something else than the raw event states.
 * - The answer its first delivery was given is stored only when it is not the receipt rebuilt from
 *   the item's own attributes, compared as JSON text when the item is written: a receipt of
 *   another form is stored whole, so nothing is ever answered otherwise than it was.
 * - A SHA-256 digest (64 hexadecimal characters) is stored as its 32 bytes.
 *
 * An item written before, with every attribute, reads the same: a stored attribute is always
 * taken before what it would be rebuilt from.
 */

/** The event's fields as the pending store's ports name them, and the item attribute of each. */
const STATED = { source: 'eventSource', id: 'eventId', type: 'eventType', reference: 'reference', at: 'eventAt' } as const;
type Stated = { [K in keyof typeof STATED]?: string };

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What the raw event states, read as the receivers read it (functions/domain/ingress/event.ts): its subject is its record's reference. */
function statedBy(raw: string): Stated {
  let body: { source?: unknown; id?: unknown; type?: unknown; subject?: unknown; data?: { changedAt?: unknown; observedAt?: unknown } };
  try {
    body = JSON.parse(raw);
  } catch {
    return {};
  }
  if (typeof body !== 'object' || body === null) return {};
  const data = typeof body.data === 'object' && body.data !== null ? body.data : {};
  return { source: text(body.source), id: text(body.id), type: text(body.type), reference: text(body.subject), at: text(data.changedAt ?? data.observedAt) };
}

/** The item attributes for `fields` that the raw event does not state as they are. */
export function statedAttributes(raw: string, fields: Required<Stated>): Item {
  const stated = statedBy(raw);
  const item: Item = {};
  for (const [field, attribute] of Object.entries(STATED) as [keyof Stated, string][]) {
    if (stated[field] !== fields[field]) item[attribute] = { S: fields[field] };
  }
  return item;
}

/**
 * Every field the raw event states, each as its attribute: what an integrated event's item keeps
 * once its raw event is dropped (pending-items.ts eventItem), so its first answer still rebuilds.
 */
export function allStatedAttributes(fields: Required<Stated>): Item {
  return Object.fromEntries((Object.entries(STATED) as [keyof Stated, string][]).map(([field, attribute]) => [attribute, { S: fields[field] }]));
}

/** The event's fields from its item: each stored attribute, else what its raw event states. */
export function statedFields(item: Item): Required<Stated> {
  const stated = statedBy(item.event?.S ?? '');
  const field = (name: keyof Stated): string => {
    const value = item[STATED[name]]?.S ?? stated[name];
    if (value === undefined) throw new Error(`event item ${item.pk?.S}: no ${name} stored or stated`);
    return value;
  };
  return { source: field('source'), id: field('id'), type: field('type'), reference: field('reference'), at: field('at') };
}

/** The answer an accepted event's first delivery is given when nothing else was stored: its receipt (functions/domain/ingress/receive.ts receiptOf). */
export function rebuiltAnswer(item: { sourceId: string; webhookId: string; receivedAt: string; effect: string }, fields: Required<Stated>): unknown {
  return {
    status: 202,
    receipt: {
      schemaVersion: 'svc.ingress-receipt.v1',
      status: 'ACCEPTED',
      sourceId: item.sourceId,
      webhookId: item.webhookId,
      eventId: fields.id,
      eventType: fields.type,
      subject: fields.reference,
      eventTime: fields.at,
      receivedAt: item.receivedAt,
      effect: item.effect,
      sequencing: 'PENDING',
    },
  };
}

/** An answer that needs storing: unless it is, to the character, the receipt rebuilt from the item. */
export const answerToStore = (answer: unknown, rebuilt: unknown): string | null => (JSON.stringify(answer) === JSON.stringify(rebuilt) ? null : JSON.stringify(answer));

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A digest as an attribute: a SHA-256 in hexadecimal as its 32 bytes, anything else as given. */
export const digestAttribute = (digest: string): AttributeValue => (SHA256_HEX.test(digest) ? { B: Buffer.from(digest, 'hex') } : { S: digest });

/** A digest from its attribute (either form). */
export function digestOf(value: AttributeValue | undefined): string | undefined {
  if (value?.B) return Buffer.from(value.B).toString('hex');
  return value?.S;
}
