import type { RecordKind } from './shared';

/** Credential record kinds (filled by the credentials capability). */
export const credentialKinds: RecordKind<any>[] = [];
