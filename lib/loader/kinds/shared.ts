import * as z from 'zod';
import type { RecordToStore } from '../../../functions/store/write';

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

/** How one kind of record is validated and expanded into stored entries. */
export interface RecordKind<Input> {
  kind: string;
  schema: z.ZodType<Input>;
  expand(input: Input): RecordToStore;
}
