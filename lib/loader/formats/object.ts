import * as z from 'zod';
import { Instant, Reference } from '../../../functions/contract/schemas/common';
import { LIFECYCLE_STATES, type LifecycleState } from '../../../functions/domain/lifecycle';
import { OBJECT_KIND, objectFromFile } from '../../../functions/domain/kinds/object';
import { entryIndexOf, increasingInstants, Restricted, type RecordFormat } from './shared';

const lifecycleStates = Object.keys(LIFECYCLE_STATES) as [LifecycleState, ...LifecycleState[]];

export const ObjectRecordInput = z.strictObject({
  kind: z.literal(OBJECT_KIND),
  reference: Reference,
  objectType: z.string().regex(/^[A-Z][A-Z0-9_]{1,39}$/, 'an UPPER_SNAKE type such as ORDER'),
  businessReference: z.string().min(1).max(180),
  title: z.string().min(1).max(200),
  authority: z.string().min(1).max(120),
  /** How long an authority observation keeps the answer fresh. */
  freshnessSeconds: z.number().int().min(1).max(366 * 24 * 3600),
  history: z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({
          type: z.literal('STATE_CHANGED'),
          at: Instant,
          state: z.enum(lifecycleStates),
          /** false: this version is not yet in the ledger (its evidence stays that of the previous version). */
          anchored: z.boolean().optional(),
        }),
        z.strictObject({ type: z.literal('AUTHORITY_OBSERVED'), at: Instant, source: z.string().min(1).max(120) }),
      ]),
    )
    .min(1)
    .superRefine(increasingInstants),
  restricted: Restricted,
});
export type ObjectRecordInput = z.infer<typeof ObjectRecordInput>;

export const objectFormat: RecordFormat<ObjectRecordInput> = {
  kind: OBJECT_KIND,
  schema: ObjectRecordInput,
  begin: objectFromFile,
  instructions(input, key) {
    const entry = input.history[key === null ? 0 : entryIndexOf(key)] as { anchored?: boolean };
    return { anchored: entry.anchored !== false };
  },
};
