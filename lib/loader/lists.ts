import { placeInLists } from '../../functions/domain/kinds/credential';
import { assignPositions, statusListsOfGroup } from '../../functions/domain/kinds/status-list';
import type { RecordToStore } from '../../functions/store/ports/records';
import type { ListMember } from './formats/shared';
import { RECORD_FORMATS } from './formats';
import type { RecordProblem } from './problems';

/**
 * The records a file's records derive (the status lists of each credential group): built from
 * every member at once, by the kinds' own rules (functions/domain/kinds/status-list.ts), which the
 * sequencer follows too when events change a credential later.
 */

const problemsOf = (placed: ReturnType<typeof assignPositions<ListMember>>): RecordProblem[] =>
  placed.problems.map(({ member, problem }) => ({ index: member.index, reference: member.reference, ...problem }));

const byReference = (positions: Map<ListMember, number>): Map<string, number> => new Map([...positions].map(([m, position]) => [m.reference, position]));

/**
 * Each member's position in its group's lists (by reference; none: not listed) and the problems,
 * without building the lists: what the checking pass needs (a group always derives two records).
 */
export function statusListPositions(group: string, members: ListMember[]): { positions: Map<string, number>; problems: RecordProblem[] } {
  const placed = assignPositions(group, members);
  return { positions: byReference(placed.positions), problems: problemsOf(placed) };
}

/** One group's lists from its members (in file order): one record per purpose, its versions over time. */
export function listRecordsOfGroup(group: string, members: ListMember[]): { positions: Map<string, number>; records: RecordToStore[]; problems: RecordProblem[] } {
  const placed = assignPositions(group, members);
  const timelines = [...placed.positions].map(([m, position]) => ({ position, changes: m.changes }));
  const records = statusListsOfGroup(group, members[0].issuer, timelines).map(({ reference, kind, entries }) => ({
    reference,
    kind,
    // Every version of a list is logged.
    entries: entries.map((e) => ({ at: e.at, entry: e.entry, view: e.view, head: { ...e.head, anchored: true } })),
  }));
  return { positions: byReference(placed.positions), records, problems: problemsOf(placed) };
}

/** Places a member in its group's lists (none: not listed, a problem was reported) and drops the loader-only pinned index. */
export function placeMember(record: RecordToStore, position: number | undefined): void {
  for (const e of record.entries) delete (e.head as { pinnedIndex?: number }).pinnedIndex;
  placeInLists(record.entries, position);
}

/** Whether a record is a member of a group's derived records (its format describes it as one). */
export const isMember = (record: RecordToStore): boolean => RECORD_FORMATS[record.kind]?.member !== undefined;

/** The format's description of a record as a member of a group's derived records, if it is one. */
export const memberOf = (record: RecordToStore, index: number): ListMember | undefined => RECORD_FORMATS[record.kind]?.member?.(record, index);

/**
 * The derived records of every validated record: one record per group and purpose whose
 * timeline holds the versions of the list over time, so reading it as of an instant is the
 * generic as-of read. Also writes each member's position into its content.
 */
export function deriveStatusLists(records: readonly RecordToStore[]): { records: RecordToStore[]; problems: RecordProblem[] } {
  const problems: RecordProblem[] = [];
  const groups = new Map<string, { members: ListMember[]; records: RecordToStore[] }>();
  records.forEach((record, index) => {
    const member = memberOf(record, index);
    if (!member) return;
    const group = groups.get(member.group) ?? { members: [], records: [] };
    group.members.push(member);
    group.records.push(record);
    groups.set(member.group, group);
  });
  const derived: RecordToStore[] = [];
  for (const [group, { members, records: listed }] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const lists = listRecordsOfGroup(group, members);
    problems.push(...lists.problems);
    for (const record of listed) placeMember(record, lists.positions.get(record.reference));
    derived.push(...lists.records);
  }
  return { records: derived, problems };
}
