import type { AssuranceLevelKey } from '../../contract/schemas/surfaces';

/** The fields of a resolution's `current` block an assurance level is computed from. */
export interface AssuranceInput {
  disposition: string;
  fresh: boolean;
  evidenceIntegrityConfirmed: boolean;
}

/**
 * How much a person can rely on the answer itself (not on the thing it describes: a revoked
 * order can be CURRENT_CONFIRMED, meaning "it is certainly revoked"). First match wins.
 */
export const ASSURANCE_RULES: ReadonlyArray<{ key: AssuranceLevelKey; rank: number; meaning: string; rule: string }> = [
  {
    key: 'UNKNOWN',
    rank: 0,
    meaning: 'Nothing is known about the reference at the instant asked.',
    rule: 'disposition is UNKNOWN',
  },
  {
    key: 'HISTORICAL',
    rank: 1,
    meaning: 'Only a past state is shown: the view was asked for an earlier instant, or the record was replaced or retired.',
    rule: 'disposition is HISTORICAL_ONLY',
  },
  {
    key: 'OBSERVED',
    rank: 2,
    meaning: 'The platform holds a current state, but it is not fresh, or it changed after its ledger evidence, or its integrity is not confirmed.',
    rule: 'otherwise, unless CURRENT_CONFIRMED applies',
  },
  {
    key: 'CURRENT_CONFIRMED',
    rank: 3,
    meaning: 'The state was observed from its authority within the freshness window and ledger evidence confirms the integrity of the version shown.',
    rule: 'disposition is CURRENT, fresh is true and evidenceIntegrityConfirmed is true',
  },
];

export function assuranceLevelOf(current: AssuranceInput): AssuranceLevelKey {
  if (current.disposition === 'UNKNOWN') return 'UNKNOWN';
  if (current.disposition === 'HISTORICAL_ONLY') return 'HISTORICAL';
  if (current.disposition === 'CURRENT' && current.fresh && current.evidenceIntegrityConfirmed) return 'CURRENT_CONFIRMED';
  return 'OBSERVED';
}
