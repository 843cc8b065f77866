import { LIFECYCLE_STATES, type LifecycleState } from '../../functions/contract/lifecycle';
import { credentialTransitionRefusal } from '../../functions/domain/kinds/credential';
import { objectTransitionRefusal } from '../../functions/domain/kinds/object';

/**
 * One table of transitions, for both writers (test/integration/transitions-both-ways.test.ts): a
 * record in a state, then a change to another. The loader reads the change as the next entry of a
 * file's history; the receivers take it as an event. Whether a change is allowed is written here
 * from the lifecycle tables themselves (docs/ingress.md#lifecycle-rules), not asked of the code:
 * an object in good standing may become anything else, a revoked one only historical, a
 * historical one nothing; a credential ACTIVE may be suspended or revoked, SUSPENDED reinstated or
 * revoked, REVOKED nothing; no change to the state already held.
 */
export interface TransitionCase {
  name: string;
  reference: string;
  /** The load file's record as it stands before the change (its history ends in `from`). */
  before: Record<string, unknown>;
  /** The change as the next history entry of the file. */
  next: Record<string, unknown>;
  /** The field a load names when it refuses the change. */
  field: string;
  /** The change as an event (type, and the payload fields emit sets). */
  event: { type: string; fields: Record<string, string> };
  allowed: boolean;
  /** The rule both writers must name when they refuse (the kind's own words). */
  rule: string | null;
}

const DAY = 86_400_000;
const STATES = Object.keys(LIFECYCLE_STATES) as LifecycleState[];

const objectAllowed = (from: LifecycleState, to: LifecycleState): boolean =>
  from !== to && (LIFECYCLE_STATES[from] === 'GOOD_STANDING' || (LIFECYCLE_STATES[from] === 'REVOKED' && LIFECYCLE_STATES[to] === 'HISTORICAL'));

const CREDENTIAL_MOVES: Record<string, string[]> = { ACTIVE: ['SUSPENDED', 'REVOKED'], SUSPENDED: ['ACTIVE', 'REVOKED'], REVOKED: [] };
/** The history entry that changes a credential to a status. */
const ENTRY_TO: Record<string, string> = { ACTIVE: 'REINSTATED', SUSPENDED: 'SUSPENDED', REVOKED: 'REVOKED' };

/** Every case, with instants before `now` (the change one hour ago, the state it changes from a day before). */
export function transitionCases(now: Date): TransitionCase[] {
  const at = (offsetMs: number) => new Date(now.getTime() + offsetMs).toISOString();
  const objects = STATES.flatMap((from, i) =>
    STATES.map((to, j): TransitionCase => {
      const reference = `TRN-${String(i).padStart(2, '0')}-${String(j).padStart(2, '0')}`;
      return {
        name: `object ${from} -> ${to}`,
        reference,
        before: {
          kind: 'OBJECT',
          reference,
          objectType: 'ORDER',
          businessReference: `ORDER ${reference}`,
          title: `Order ${reference}`,
          authority: 'Service platform',
          freshnessSeconds: 3600,
          history: [{ type: 'STATE_CHANGED', at: at(-2 * DAY), state: from }],
        },
        next: { type: 'STATE_CHANGED', at: at(-DAY / 24), state: to },
        field: 'history.1.state',
        event: { type: 'svc.living-object.state-changed.v1', fields: { previousState: from, state: to } },
        allowed: objectAllowed(from, to),
        rule: objectTransitionRefusal(from, to),
      };
    }),
  );
  const statuses = Object.keys(CREDENTIAL_MOVES);
  const credentials = statuses.flatMap((from, i) =>
    statuses.map((to, j): TransitionCase => {
      const reference = `CTR-${i}-${j}`;
      const history: Record<string, unknown>[] = [{ type: 'ISSUED', at: at(-3 * DAY) }];
      if (from !== 'ACTIVE') history.push({ type: ENTRY_TO[from], at: at(-2 * DAY) });
      return {
        name: `credential ${from} -> ${to}`,
        reference,
        before: {
          kind: 'CREDENTIAL',
          reference,
          credentialType: 'MembershipCredential',
          title: `Membership ${reference}`,
          issuer: 'did:web:issuer.example.org',
          validFrom: at(-3 * DAY),
          subject: { type: 'Member', claims: { membershipLevel: 'GOLD' } },
          statusList: 'transitions',
          freshnessSeconds: 3600,
          history,
        },
        next: { type: ENTRY_TO[to], at: at(-DAY / 24) },
        field: `history.${history.length}.type`,
        event: { type: 'svc.credential.status-changed.v1', fields: { previousStatus: from, status: to } },
        allowed: CREDENTIAL_MOVES[from].includes(to),
        rule: credentialTransitionRefusal(from, to),
      };
    }),
  );
  return [...objects, ...credentials];
}

/** The case's record with the change as the next entry of its history. */
export const withChange = (c: TransitionCase): Record<string, unknown> => ({ ...c.before, history: [...(c.before.history as unknown[]), c.next] });
