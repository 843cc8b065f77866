import * as z from 'zod';
import { EVENT_ENVELOPES } from '../../contract/ingress';
import type { BodyIssue } from '../../contract/body-check';
import { fieldIssues, issueAt, parseJsonBody, SandboxInputError } from '../sandbox/input';

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

/**
 * Checks a value with a contract schema, naming each failing field. The receivers validate with
 * zod itself: the generated body plans (functions/generated/bodies.ts) do not cover the nullable
 * fields of the event payloads yet, so the receivers' bundles carry zod (bundle-contents test).
 */
function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  // reportInput: each issue keeps the offending input, so a missing field reads "is required".
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw new SandboxInputError(fieldIssues(parsed.error.issues as unknown as BodyIssue[]));
  return parsed.data;
}

/** Any JSON object: what parseJsonBody checks before the event's own schema is chosen by its type. */
const ANY_OBJECT = { t: 'unknown' } as const;

export function parseCanonicalEvent(rawBody: string | null, accepts: readonly string[]): CanonicalEvent {
  const body = parseJsonBody<unknown>(rawBody, ANY_OBJECT, { optional: false });
  const typed = validate(z.object({ type: z.enum(accepts as [string, ...string[]]) }).loose(), body);
  const event = validate(EVENT_ENVELOPES[typed.type], body) as Omit<CanonicalEvent, 'reference' | 'at'>;
  const data = event.data;
  const reference = String(data.reference ?? data.claimId);
  const referenceField = data.reference !== undefined ? 'reference' : 'claimId';
  if (event.subject !== reference) {
    throw new SandboxInputError([issueAt(['subject'], `must be the event's data.${referenceField} ('${reference}')`)]);
  }
  const at = String(data.changedAt ?? data.observedAt);
  return { ...event, reference, at };
}
