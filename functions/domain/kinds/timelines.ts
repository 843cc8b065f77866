import { credentialTimeline } from './credential';
import { proofTimeline } from './commercial-proof';
import type { TimelineRules } from './kind';
import { objectTimeline } from './object';
import { statusListTimeline } from './status-list';

/** Every kind's timeline rules, by kind: what the integration algorithm (functions/domain/ingress/integrate.ts) asks. */
const TIMELINES = new Map<string, TimelineRules>([objectTimeline, credentialTimeline, proofTimeline, statusListTimeline].map((rules) => [rules.kind, rules]));

export const timelineOf = (kind: string | null): TimelineRules | undefined => (kind === null ? undefined : TIMELINES.get(kind));
