import type { RecordKind } from './shared';

/** Commercial proof record kinds (filled by the ledger and proofs capability). */
export const proofKinds: RecordKind<any>[] = [];
