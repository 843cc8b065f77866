import type { RecordChange } from '../../functions/store/ports/records';

/** One step of an object's history: a state change begins a version; an observation confirms the state held. */
export interface ObjectStep {
  type: 'STATE_CHANGED' | 'AUTHORITY_OBSERVED';
  state: string;
  /** The identity of the event that made the entry, if an event did. */
  eventKey: string | null;
}

/** An object's record change as a writer gives it: an entry a minute (`minute(0)`, `minute(1)`, …), each version's head with its state and no evidence. */
export function objectChange(reference: string, steps: readonly ObjectStep[], minute: (n: number) => string): RecordChange {
  let head = { reference, version: 0, content: { state: '' }, evidence: null };
  const entries = steps.map((step, n) => {
    if (step.type === 'STATE_CHANGED') head = { reference, version: head.version + 1, content: { state: step.state }, evidence: null };
    return { id: null, at: minute(n), entry: { at: minute(n), type: step.type, state: step.state }, view: { state: step.state }, head, eventKey: step.eventKey };
  });
  return { reference, kind: 'OBJECT', entries, genesis: { highestVersion: head.version } };
}
