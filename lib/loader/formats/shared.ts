import * as z from 'zod';
import type { RecordBeginning } from '../../../functions/domain/kinds/kind';
import type { RecordToStore } from '../../../functions/store/ports/records';

/**
 * Data the platform holds about a record that must never be disclosed (customer identity,
 * payment accounts, internal notes). The loader stores it with the record; no response
 * projects it. It exists so tests can prove that.
 */
export const Restricted = z.record(z.string(), z.unknown()).optional();

/** History instants must strictly increase: the timeline is an ordered log, and paging by asOf relies on it. */
export function increasingInstants(history: { at: string }[], ctx: z.RefinementCtx): void {
  for (let i = 1; i < history.length; i++) {
    if (Date.parse(history[i].at) <= Date.parse(history[i - 1].at)) {
      ctx.addIssue({ code: 'custom', path: [i, 'at'], message: `must be later than history[${i - 1}].at` });
    }
  }
}

/** The index of the file's history entry an event's key names (`history.<i>...`, `synchronizations.<i>`). */
export const entryIndexOf = (key: string): number => Number(/^\w+\.(\d+)/.exec(key)![1]);

/**
 * How a load file writes one kind of record: the form of a record (its schema), and what the file
 * says beyond what its kind reads from it. What the record means (how it begins, which events its
 * history states, which of them its rules refuse) is its kind's (functions/domain/kinds/).
 */
export interface RecordFormat<Input> {
  kind: string;
  schema: z.ZodType<Input>;
  /** The record as its kind reads the file: its first entry and its history as events. */
  begin(input: Input): RecordBeginning;
  /**
   * The loader's instructions for a version, read and removed before it is stored (lib/loader/evidence.ts):
   * whether it is logged (`anchored`), and any other; `key` is the key of the event that made it, null for the first.
   */
  instructions(input: Input, key: string | null): Record<string, unknown>;
  /** A record the file's derived records are built from (a credential: its group's status lists): what they need of it. */
  member?(record: RecordToStore, index: number): ListMember;
}

/** What a group's derived records (status lists) need of one record of the file (a few dozen bytes: kept on disk between passes). */
export interface ListMember {
  /** The record's position in the file (problems name it). */
  index: number;
  reference: string;
  group: string;
  issuer: string;
  pinnedIndex?: number;
  issuedAt: string;
  changes: { at: string; status: string }[];
}
