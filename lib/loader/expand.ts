import { integrateEvents } from '../../functions/domain/ingress/integrate';
import type { FileProblem, Head } from '../../functions/domain/kinds/kind';
import type { RecordToStore } from '../../functions/store/ports/records';
import type { RecordFormat } from './formats/shared';

/**
 * A file's record as it is stored, built the way the service builds a record from events: its
 * kind reads how it begins and turns every later history entry into the event that states it,
 * and the sequencer's own integration (functions/domain/ingress/integrate.ts) integrates them. So a
 * load refuses exactly what the receivers and the sequencer refuse, naming the entry and the rule,
 * and a loaded record is what the same events make (test/integration/load-equals-events.test.ts).
 * Each version then carries the loader's instructions (whether it is logged, ...), read and removed
 * before it is stored.
 */
export function expandFromFile<Input>(format: RecordFormat<Input>, input: Input & { reference: string }): { record: RecordToStore; problems?: undefined } | { record?: undefined; problems: FileProblem[] } {
  const beginning = format.begin(input);
  if (beginning.problems.length > 0 || !beginning.genesis) return { problems: beginning.problems };
  const integration = integrateEvents(format.kind, [beginning.genesis], beginning.events);
  const refused = integration.outcomes.flatMap((o) => (o.sequenced ? [] : [{ field: o.key, message: o.reason }]));
  if (refused.length > 0) return { problems: refused };
  // Each version with the instructions of the history entry that made it, in the field order a load has always stored.
  const madeBy = new Map(integration.outcomes.flatMap((o) => (o.sequenced && o.version !== null ? [[o.version, o.key] as const] : [])));
  const decorated = new Map<Head, Head>();
  const withInstructions = (head: Head): Head => {
    let copy = decorated.get(head);
    if (!copy) {
      const { kind, reference, version, content, evidence, restricted } = head;
      const key = head === beginning.genesis.head ? null : (madeBy.get(version) ?? null);
      copy = { kind, reference, version, content, evidence, ...format.instructions(input, key), ...(restricted ? { restricted } : {}) };
      decorated.set(head, copy);
    }
    return copy;
  };
  const entries = integration.entries.map((e) => ({ at: e.at, entry: e.entry, view: e.view, head: withInstructions(e.head) }));
  return { record: { reference: input.reference, kind: format.kind, entries } };
}
