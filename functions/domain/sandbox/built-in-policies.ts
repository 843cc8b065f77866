import type { BUILT_IN_POLICY_NAMES, TrustPolicy } from '../../contract/schemas/sandbox';

/**
 * The named built-in trust policies. They are ordinary policies in the custom format (a
 * developer can copy one from docs/sandbox.md or examples.json and change it), so the built-ins
 * and custom policies go through exactly the same validation and evaluation.
 */
const DAY = 86_400;

const fact = (name: string) => ({ var: name });
const statusIn = (...statuses: string[]) => ({ in: [fact('credentialStatus'), statuses] });
const statusAgeAbove = (seconds: number) => ({
  or: [{ '==': [fact('credentialStatusAgeSeconds'), null] }, { '>': [fact('credentialStatusAgeSeconds'), seconds] }],
});

const RECHECK_STATUS = { description: 'Check the credential status online again now', change: { credentialStatusAgeSeconds: 0 } };
const RECHECK_STATUS_VALID = {
  description: 'Check the credential status online again and find it VALID',
  change: { credentialStatus: 'VALID' as const, credentialStatusAgeSeconds: 0 },
};
const RAISE_TO_SUBSTANTIAL = { description: 'Authenticate at assurance level SUBSTANTIAL', change: { assuranceLevel: 'SUBSTANTIAL' as const } };
const RAISE_TO_HIGH = { description: 'Authenticate at assurance level HIGH', change: { assuranceLevel: 'HIGH' as const } };

export const BUILT_IN_POLICIES: Record<(typeof BUILT_IN_POLICY_NAMES)[number], TrustPolicy> = {
  baseline: {
    id: 'baseline',
    description: 'Everyday relying party: a usable credential checked within a day, SUBSTANTIAL assurance, HIGH when the risk is elevated.',
    rules: [
      { id: 'deny-revoked-or-expired', when: statusIn('REVOKED', 'EXPIRED'), decision: 'DENY', reason: 'The credential is revoked or expired.' },
      { id: 'deny-high-risk', when: { '>=': [fact('riskScore'), 80] }, decision: 'DENY', reason: 'The risk score is 80 or more.' },
      {
        id: 'step-up-status-unsettled',
        when: statusIn('SUSPENDED', 'UNKNOWN'),
        decision: 'STEP_UP',
        reason: 'The credential status is suspended or unknown.',
        satisfiedBy: [RECHECK_STATUS_VALID],
      },
      {
        id: 'step-up-status-check-old',
        when: statusAgeAbove(DAY),
        decision: 'STEP_UP',
        reason: 'The credential status was not checked within the last 24 hours.',
        satisfiedBy: [RECHECK_STATUS],
      },
      {
        id: 'step-up-low-assurance',
        when: { '<': [fact('assuranceRank'), 2] },
        decision: 'STEP_UP',
        reason: 'The assurance level is below SUBSTANTIAL.',
        satisfiedBy: [RAISE_TO_SUBSTANTIAL, RAISE_TO_HIGH],
      },
      {
        id: 'step-up-elevated-risk',
        when: { and: [{ '>=': [fact('riskScore'), 50] }, { '<': [fact('assuranceRank'), 3] }] },
        decision: 'STEP_UP',
        reason: 'The risk score is 50 or more and the assurance level is below HIGH.',
        satisfiedBy: [RAISE_TO_HIGH],
      },
      { id: 'allow', when: true, decision: 'ALLOW', reason: 'Usable credential, status checked within 24 hours, sufficient assurance for the risk.' },
    ],
  },
  'high-assurance': {
    id: 'high-assurance',
    description: 'Regulated relying party: a VALID credential checked within the hour, HIGH assurance, an ACTIVE channel, low risk.',
    rules: [
      { id: 'deny-status-not-valid', when: { '!=': [fact('credentialStatus'), 'VALID'] }, decision: 'DENY', reason: 'The credential status is not VALID.' },
      { id: 'deny-channel-not-active', when: { '!=': [fact('channelReadiness'), 'ACTIVE'] }, decision: 'DENY', reason: 'The channel is not ACTIVE.' },
      {
        id: 'deny-risk',
        when: { or: [{ '>=': [fact('riskScore'), 60] }, { in: ['IMPOSSIBLE_TRAVEL', fact('riskSignals')] }] },
        decision: 'DENY',
        reason: 'The risk score is 60 or more, or impossible travel was signalled.',
      },
      {
        id: 'step-up-status-check-old',
        when: statusAgeAbove(3600),
        decision: 'STEP_UP',
        reason: 'The credential status was not checked within the last hour.',
        satisfiedBy: [RECHECK_STATUS],
      },
      {
        id: 'step-up-assurance-below-high',
        when: { '<': [fact('assuranceRank'), 3] },
        decision: 'STEP_UP',
        reason: 'The assurance level is below HIGH.',
        satisfiedBy: [RAISE_TO_HIGH],
      },
      { id: 'allow', when: true, decision: 'ALLOW', reason: 'VALID credential checked within the hour, HIGH assurance, ACTIVE channel, low risk.' },
    ],
  },
  'offline-presentation': {
    id: 'offline-presentation',
    description: 'Verifier without connectivity: tolerates a status check up to 72 hours old, never a suspended, revoked or expired credential.',
    rules: [
      {
        id: 'deny-status-withdrawn',
        when: statusIn('SUSPENDED', 'REVOKED', 'EXPIRED'),
        decision: 'DENY',
        reason: 'The credential is suspended, revoked or expired.',
      },
      {
        id: 'deny-cloning-suspected',
        when: { in: ['CLONED_CREDENTIAL_SUSPECTED', fact('riskSignals')] },
        decision: 'DENY',
        reason: 'A cloned credential is suspected.',
      },
      {
        id: 'step-up-status-unknown',
        when: statusIn('UNKNOWN'),
        decision: 'STEP_UP',
        reason: 'The credential status is unknown: it has never been checked online.',
        satisfiedBy: [RECHECK_STATUS_VALID],
      },
      {
        id: 'step-up-status-check-too-old',
        when: statusAgeAbove(3 * DAY),
        decision: 'STEP_UP',
        reason: 'The last online status check is more than 72 hours old; go online and check again.',
        satisfiedBy: [RECHECK_STATUS],
      },
      {
        id: 'step-up-low-assurance',
        when: { '<': [fact('assuranceRank'), 2] },
        decision: 'STEP_UP',
        reason: 'The assurance level is below SUBSTANTIAL.',
        satisfiedBy: [RAISE_TO_SUBSTANTIAL],
      },
      { id: 'allow', when: true, decision: 'ALLOW', reason: 'Credential usable offline: status checked within 72 hours, SUBSTANTIAL assurance or more.' },
    ],
  },
};
