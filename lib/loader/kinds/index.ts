import { credentialKinds } from './credential';
import { objectKind } from './object';
import { proofKinds } from './proof';
import type { RecordKind } from './shared';

/** Every kind of record the loader accepts, by the value of its `kind` field. */
export const RECORD_KINDS: Record<string, RecordKind<any>> = Object.fromEntries(
  [objectKind, ...proofKinds, ...credentialKinds].map((k) => [k.kind, k]),
);
