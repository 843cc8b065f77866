import * as z from 'zod';
import { EVENT_ENVELOPES } from '../../contract/ingress';
import { issueAt, parseJsonBody, SandboxInputError, validate } from '../sandbox/input';

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

export { SandboxInputError as EventInputError };

export function parseCanonicalEvent(rawBody: string | null, accepts: readonly string[]): CanonicalEvent {
  const typed = parseJsonBody(rawBody, z.object({ type: z.enum(accepts as [string, ...string[]]) }).loose(), { optional: false });
  const event = validate(EVENT_ENVELOPES[typed.type], JSON.parse(rawBody!)) as Omit<CanonicalEvent, 'reference' | 'at'>;
  const data = event.data;
  const reference = String(data.reference ?? data.claimId);
  const referenceField = data.reference !== undefined ? 'reference' : 'claimId';
  if (event.subject !== reference) {
    throw new SandboxInputError([issueAt(['subject'], `must be the event's data.${referenceField} ('${reference}')`)]);
  }
  const at = String(data.changedAt ?? data.observedAt);
  return { ...event, reference, at };
}
