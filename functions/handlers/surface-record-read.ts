import { GET_PATHS } from '../generated/routes';
import type { CommercialProofEvidence } from '../contract/schemas/proofs';
import { assessIntegrity, inspectIntegrity } from '../domain/evidence';
import { resolveObject, type ObjectWindowEntry } from '../domain/objects';
import { COMMERCIAL_PROOF_KIND, commercialProofEvidence, publicProof, type ProofTimelineEntry, type ProofWindowEntry } from '../domain/proofs';
import type { ResolutionView } from '../domain/surfaces/presentation';
import { readRecordWindow } from '../store/records';

export type PageRead =
  | { found: false }
  | { found: true; kind: 'OBJECT'; view: ResolutionView; olderEntriesExist: boolean }
  | { found: true; kind: 'COMMERCIAL_PROOF'; evidence: CommercialProofEvidence; timeline: ProofTimelineEntry[]; olderEntriesExist: boolean }
  | { found: true; kind: 'OTHER'; recordKind: string };

/**
 * One Query (readRecordWindow), then the same pure builders the JSON routes use, so a page can
 * never say something the JSON does not: resolveObject for living objects, commercialProofEvidence
 * for commercial proofs.
 */
export async function readRecordForPage(reference: string, baseUrl: string, timelineWindow: number, now = new Date().toISOString()): Promise<PageRead> {
  const window = await readRecordWindow<unknown, unknown, unknown>(reference, now, timelineWindow);
  if (!window.exists) return { found: false };
  if (window.kind === 'OBJECT') {
    const entries = window.entries as ObjectWindowEntry[];
    const integrity = entries.length > 0 ? assessIntegrity(entries[0].head) : { confirmed: false, reason: 'Nothing is recorded at this instant.' };
    const resolution = resolveObject({ reference, entries, evaluation: { at: now, historical: false }, integrityConfirmed: integrity.confirmed, baseUrl });
    return { found: true, kind: 'OBJECT', view: { resolution, integrityReason: integrity.reason }, olderEntriesExist: window.more };
  }
  if (window.kind === COMMERCIAL_PROOF_KIND) {
    const entries = window.entries as ProofWindowEntry[];
    const newest = entries[0];
    // A proof issued after the service clock is not held yet (as the JSON route answers).
    if (!newest) return { found: false };
    const integrity = inspectIntegrity({ ...newest.head, content: publicProof(newest.head.content) });
    const evidence = commercialProofEvidence({ newest, integrity, now, baseUrl });
    return { found: true, kind: 'COMMERCIAL_PROOF', evidence, timeline: entries.map((e) => e.entry).reverse(), olderEntriesExist: window.more };
  }
  return { found: true, kind: 'OTHER', recordKind: window.kind ?? 'UNKNOWN' };
}

/** The ledger's key route, linked from pages only when the contract publishes it. */
export const ledgerUrl = (baseUrl: string): string | undefined => (GET_PATHS.includes('/v1/ledger') ? `${baseUrl}/v1/ledger` : undefined);
