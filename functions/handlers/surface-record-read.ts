import { GET_PATHS } from '../generated/routes';
import type { CommercialProofEvidence } from '../contract/schemas/proofs';
import { assessIntegrity, inspectIntegrity, trustedLedgerKeys } from '../domain/evidence';
import { resolveObject, type ObjectWindowEntry } from '../domain/objects';
import { COMMERCIAL_PROOF_KIND, commercialProofEvidence, publicProof, type ProofTimelineEntry, type ProofWindowEntry } from '../domain/proofs';
import type { DeviceCheckInput } from '../pages/device-check';
import type { ResolutionView } from '../pages/presentation';
import { environmentRecords } from '../store/environment';

export type PageRead =
  | { found: false }
  | { found: true; kind: 'OBJECT'; view: ResolutionView; olderEntriesExist: boolean; device?: DeviceCheckInput }
  | { found: true; kind: 'COMMERCIAL_PROOF'; evidence: CommercialProofEvidence; timeline: ProofTimelineEntry[]; olderEntriesExist: boolean; device: DeviceCheckInput }
  | { found: true; kind: 'OTHER'; recordKind: string };

/**
 * One Query (readRecordWindow), then the same pure builders the JSON routes use, so a page can
 * never say something the JSON does not: resolveObject for living objects, commercialProofEvidence
 * for commercial proofs. `device` is what the page's in-browser check re-verifies: the version
 * shown exactly as logged, its evidence, and the verifier keys the service publishes.
 */
export async function readRecordForPage(reference: string, baseUrl: string, timelineWindow: number, now = new Date().toISOString()): Promise<PageRead> {
  const window = await environmentRecords().readWindow<unknown, unknown, unknown>(reference, now, timelineWindow);
  if (!window.exists) return { found: false };
  if (window.kind === 'OBJECT') {
    const entries = window.entries as ObjectWindowEntry[];
    const integrity = entries.length > 0 ? assessIntegrity(entries[0].head, entries[0].headText) : { confirmed: false, reason: 'Nothing is recorded at this instant.' };
    const resolution = resolveObject({ reference, entries, evaluation: { at: now, historical: false }, integrityConfirmed: integrity.confirmed, baseUrl });
    const head = entries[0]?.head;
    const device = head ? { record: head.content, evidence: head.evidence ?? undefined, verifierKeys: trustedLedgerKeys() } : undefined;
    return { found: true, kind: 'OBJECT', view: { resolution, integrityReason: integrity.reason }, olderEntriesExist: window.more, device };
  }
  if (window.kind === COMMERCIAL_PROOF_KIND) {
    const entries = window.entries as ProofWindowEntry[];
    const newest = entries[0];
    // A proof issued after the service clock is not held yet (as the JSON route answers).
    if (!newest) return { found: false };
    const record = publicProof(newest.head.content);
    const integrity = inspectIntegrity({ ...newest.head, content: record });
    const evidence = commercialProofEvidence({ newest, integrity, now, baseUrl });
    const device = { record, evidence: newest.head.evidence ?? undefined, verifierKeys: trustedLedgerKeys() };
    return { found: true, kind: 'COMMERCIAL_PROOF', evidence, timeline: entries.map((e) => e.entry).reverse(), olderEntriesExist: window.more, device };
  }
  return { found: true, kind: 'OTHER', recordKind: window.kind ?? 'UNKNOWN' };
}

/** The ledger's key route, linked from pages only when the contract publishes it. */
export const ledgerUrl = (baseUrl: string): string | undefined => (GET_PATHS.includes('/v1/ledger') ? `${baseUrl}/v1/ledger` : undefined);
