import { credentialFormat } from './credential';
import { objectFormat } from './object';
import { proofFormat } from './proof';
import type { RecordFormat } from './shared';

/** Every kind of record the loader accepts, by the value of its `kind` field. */
export const RECORD_FORMATS: Record<string, RecordFormat<any>> = Object.fromEntries([objectFormat, proofFormat, credentialFormat].map((f) => [f.kind, f]));
