import type { BodyPlan } from '../../contract/body-check';
import { EVENT_ENVELOPE_PLANS } from '../../generated/bodies';
import { checkAgainst, issueAt, parseJsonBody, JsonInputError } from '../json-input';

/**
 * Reading a verified delivery as one canonical event (pure). The body must be a CloudEvents 1.0
 * structured-mode JSON object of a type the source may send, and must satisfy that type's closed
 * envelope and payload schema; every refusal names the field (dotted path and JSON Pointer).
 */
export interface CanonicalEvent {
  type: string;
  id: string;
  source: string;
  subject: string;
  time: string;
  data: Record<string, unknown>;
  /** The record the event is about (data.reference, or data.claimId for credentials). */
  reference: string;
  /** The instant the event states (changedAt or observedAt): where it sits in the record's timeline. */
  at: string;
}

export { JsonInputError as EventInputError };

/** Any JSON object: what parseJsonBody checks before the event's own schema is chosen by its type. */
const ANY_OBJECT = { t: 'unknown' } as const;

/**
 * The first check of a delivery: a `type` the source may send, other fields left to the envelope
 * (the plan of zod's `z.object({ type: z.enum(accepts) }).loose()`, made per source because the
 * list is the source's). So a wrong or missing type is refused at field `type` with the types
 * this source sends, whatever else is wrong. test/unit/body-check.test.ts holds the whole reading
 * to the zod-validating one it replaced.
 */
const typePlan = (accepts: readonly string[]): BodyPlan<{ type: string }> => ({ t: 'object', shape: [['type', { t: 'enum', values: [...accepts] }]], unknownKeys: 'keep' });

export function parseCanonicalEvent(rawBody: string | null, accepts: readonly string[]): CanonicalEvent {
  return readCanonicalEvent(rawBody, accepts).event;
}

/**
 * The canonical event, and the body as parsed (`value`): what the event's content digest is taken
 * of, as the sender wrote it (the checked event is rebuilt by the checks), without parsing it again.
 */
export function readCanonicalEvent(rawBody: string | null, accepts: readonly string[]): { event: CanonicalEvent; value: unknown } {
  const body = parseJsonBody<unknown>(rawBody, ANY_OBJECT, { optional: false });
  const typed = checkAgainst(typePlan(accepts), body);
  // Then the envelope of that type, with the plan generated from its contract schema
  // (functions/generated/bodies.ts): the same issues as the schema, without loading zod.
  const event = checkAgainst(EVENT_ENVELOPE_PLANS[typed.type], body);
  const data = event.data;
  const reference = String(data.reference ?? data.claimId);
  const referenceField = data.reference !== undefined ? 'reference' : 'claimId';
  if (event.subject !== reference) {
    throw new JsonInputError([issueAt(['subject'], `must be the event's data.${referenceField} ('${reference}')`)]);
  }
  const at = String(data.changedAt ?? data.observedAt);
  return { event: { ...event, reference, at }, value: body };
}
