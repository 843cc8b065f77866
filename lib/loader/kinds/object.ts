import * as z from 'zod';
import { Instant, Reference } from '../../../functions/contract/schemas/common';
import { LIFECYCLE_STATES, type LifecycleState } from '../../../functions/domain/lifecycle';
import type { ObjectContent, ObjectHead, ObjectView } from '../../../functions/domain/objects';
import type { TimelineEntry } from '../../../functions/contract/schemas/objects';
import type { RecordToStore } from '../../../functions/store/write';
import { increasingInstants, Restricted, type RecordKind } from './shared';

const lifecycleStates = Object.keys(LIFECYCLE_STATES) as [LifecycleState, ...LifecycleState[]];

export const ObjectRecordInput = z
  .strictObject({
    kind: z.literal('OBJECT'),
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
      .superRefine(increasingInstants)
      .refine((h) => h[0]?.type === 'STATE_CHANGED', { message: 'the first history entry must be a STATE_CHANGED' }),
    restricted: Restricted,
  });
export type ObjectRecordInput = z.infer<typeof ObjectRecordInput>;

/** A head as the loader builds it; `anchored` is read by the ledger step and not stored. */
export type LoaderHead<H> = H & { anchored: boolean };

export function expandObject(input: ObjectRecordInput): RecordToStore {
  const entries: RecordToStore['entries'] = [];
  let head: LoaderHead<ObjectHead> | undefined;
  let lastObservedAt: string | null = null;
  for (const h of input.history) {
    let entry: TimelineEntry;
    if (h.type === 'STATE_CHANGED') {
      const previousState = head?.content.state ?? null;
      const version = (head?.version ?? 0) + 1;
      const content: ObjectContent = {
        reference: input.reference,
        objectType: input.objectType,
        businessReference: input.businessReference,
        title: input.title,
        authority: input.authority,
        state: h.state,
        stateSince: h.at,
        version,
        freshnessSeconds: input.freshnessSeconds,
      };
      head = { kind: 'OBJECT', reference: input.reference, version, content, evidence: null, anchored: h.anchored !== false };
      if (input.restricted) head.restricted = input.restricted;
      entry = { at: h.at, type: 'STATE_CHANGED', state: h.state, previousState, source: input.authority };
    } else {
      lastObservedAt = h.at;
      entry = { at: h.at, type: 'AUTHORITY_OBSERVED', state: head!.content.state, source: h.source };
    }
    const view: ObjectView = { state: head!.content.state, lastObservedAt };
    entries.push({ at: h.at, entry, view, head: head! });
  }
  return { reference: input.reference, kind: 'OBJECT', entries };
}

export const objectKind: RecordKind<ObjectRecordInput> = {
  kind: 'OBJECT',
  schema: ObjectRecordInput,
  expand: expandObject,
};
