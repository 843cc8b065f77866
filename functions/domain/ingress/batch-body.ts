import { INGRESS_BATCH_MAX_EVENTS, INGRESS_MAX_BODY_BYTES } from '../../contract/ingress-values';
import { issueAt, JsonInputError } from '../json-input';
import { readCanonicalEvent, type CanonicalEvent } from './event';

/**
 * Reading a verified delivery in CloudEvents' JSON batch format (JSON Event Format 1.0, section 4:
 * a JSON array whose items are events in the JSON Event Format), pure. The array as a whole must
 * be JSON and an array of at most INGRESS_BATCH_MAX_EVENTS items (else the delivery is refused
 * whole); each item is then read exactly as a delivery of one event is read, from its own bytes as
 * received (readCanonicalEvent: a member name given twice, an unknown field, a type the source may
 * not send), so a bad item is refused on its own and never sinks the others.
 */

/** One item of a batch: the event it states, or the problem that refuses it (422; 413 when the item alone is over a single event's limit). */
export type BatchItem =
  | { event: CanonicalEvent; value: unknown; raw: string }
  | { invalid: { status: 413 | 422; code: 'INVALID_REQUEST' | 'PAYLOAD_TOO_LARGE'; detail: string; extra: Record<string, unknown> } };

/** Why a batch is refused whole: not a JSON array (422), or more events than a batch may hold (413). */
export class BatchRefused extends Error {
  constructor(
    readonly status: 413 | 422,
    readonly detail: string,
    readonly extra: Record<string, unknown>,
  ) {
    super(detail);
    this.name = 'BatchRefused';
  }
}

/**
 * The raw text of each item of a JSON array, as it stands in `text` (without the whitespace around
 * it). `text` must be a JSON array that JSON.parse accepted: the scan only follows its strings,
 * brackets, braces and commas, and cuts at the commas of the outermost array.
 */
export function arrayItemTexts(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, stepping over escapes.
      for (i++; text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth === 1) {
        start = i + 1;
        continue;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      if (depth === 0) {
        const last = text.slice(start, i).trim();
        if (last !== '') items.push(last);
        break;
      }
    } else if (c === 0x2c && depth === 1) {
      items.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  return items;
}

/** One item read as a delivery of one event would be, or the problem refusing it. */
function readItem(raw: string, index: number, accepts: readonly string[]): BatchItem {
  if (Buffer.byteLength(raw, 'utf8') > INGRESS_MAX_BODY_BYTES) {
    return { invalid: { status: 413, code: 'PAYLOAD_TOO_LARGE', detail: `Event ${index} exceeds ${INGRESS_MAX_BODY_BYTES} bytes, an event's limit in a batch as alone.`, extra: { maxBodyBytes: INGRESS_MAX_BODY_BYTES } } };
  }
  try {
    return { ...readCanonicalEvent(raw, accepts), raw };
  } catch (error) {
    if (!(error instanceof JsonInputError)) throw error;
    const [first] = error.issues;
    const detail = first.field === '(body)' ? `Event ${index} ${first.detail}.` : `Field '${first.field}' of event ${index} ${first.detail}.`;
    return { invalid: { status: 422, code: 'INVALID_REQUEST', detail, extra: { field: first.field, errors: error.issues } } };
  }
}

/** The batch's items, each read on its own; BatchRefused when the body is not a JSON array of at most INGRESS_BATCH_MAX_EVENTS items. */
export function readBatchBody(body: string, accepts: readonly string[]): BatchItem[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new BatchRefused(422, `The request body is not valid JSON (${(error as Error).message}).`, { field: '(body)', errors: [issueAt([], 'is not valid JSON')] });
  }
  if (!Array.isArray(value)) {
    const what = value === null ? 'null' : `a ${typeof value}`;
    const detail = `A batch (application/cloudevents-batch+json) must be a JSON array of events, not ${what}; send one event as application/cloudevents+json.`;
    throw new BatchRefused(422, detail, { field: '(body)', errors: [issueAt([], `must be a JSON array, not ${what}`)] });
  }
  if (value.length > INGRESS_BATCH_MAX_EVENTS) {
    throw new BatchRefused(413, `A batch holds at most ${INGRESS_BATCH_MAX_EVENTS} events; this one holds ${value.length}. Send the rest in further deliveries.`, { maxEvents: INGRESS_BATCH_MAX_EVENTS });
  }
  const texts = arrayItemTexts(body);
  if (texts.length !== value.length) throw new Error(`a batch of ${value.length} items was cut into ${texts.length}`);
  return texts.map((raw, index) => readItem(raw, index, accepts));
}
