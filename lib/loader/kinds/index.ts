import { objectKind } from './object';
import type { RecordKind } from './shared';

/** Every kind of record the loader accepts, by the value of its `kind` field. */
export const RECORD_KINDS: Record<string, RecordKind<any>> = {
  [objectKind.kind]: objectKind,
};
