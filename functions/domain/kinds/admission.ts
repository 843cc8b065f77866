import { credentialAdmission } from './credential';
import { proofAdmission } from './commercial-proof';
import type { AdmissionRules } from './kind';
import { objectAdmission } from './object';

/**
 * The kinds the receivers ask (functions/domain/ingress/rules.ts): the event types about each, what
 * its views state, and its rules for an accepted event. Only these: a receiver carries no
 * integration rules (its bundle stays small: test/unit/bundle-budgets.test.ts).
 */
const ADMISSIONS: readonly AdmissionRules[] = [objectAdmission, credentialAdmission, proofAdmission];

const BY_EVENT_TYPE = new Map(ADMISSIONS.flatMap((rules) => rules.eventTypes.map((type) => [type, rules] as const)));
const BY_KIND = new Map(ADMISSIONS.map((rules) => [rules.kind, rules] as const));

/** The kind an event type is about, or undefined for a type no receiver takes. */
export const admissionOfEventType = (type: string): AdmissionRules | undefined => BY_EVENT_TYPE.get(type);

/** A kind's admission rules, or undefined for a kind no event is about (a status list). */
export const admissionOfKind = (kind: string | null): AdmissionRules | undefined => (kind === null ? undefined : BY_KIND.get(kind));
