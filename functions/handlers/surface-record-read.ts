import { GET_PATHS } from '../generated/routes';
import type { CredentialVerification } from '../contract/schemas/credentials';
import type { CommercialProofEvidence } from '../contract/schemas/proofs';
import { CREDENTIAL_KIND, type CredentialTimelineEntry, type CredentialWindowEntry } from '../domain/credentials/model';
import { verifyCredential } from '../domain/credentials/verification';
import { assessIntegrity, inspectIntegrity, trustedLedgerKeys } from '../domain/evidence';
import { resolveObject, type ObjectWindowEntry } from '../domain/objects';
import { COMMERCIAL_PROOF_KIND, commercialProofEvidence, publicProof, type ProofTimelineEntry, type ProofWindowEntry } from '../domain/proofs';
import type { DeviceCheckInput } from '../pages/device-check';
import { integrityKind, type IntegrityKind, type ResolutionView } from '../pages/presentation';
import { environmentRecords } from '../store/environment';

export type PageRead =
  | { found: false }
  | { found: true; kind: 'OBJECT'; view: ResolutionView; olderEntriesExist: boolean; device?: DeviceCheckInput }
  | { found: true; kind: 'COMMERCIAL_PROOF'; evidence: CommercialProofEvidence; integrity: IntegrityKind; timeline: ProofTimelineEntry[]; olderEntriesExist: boolean; device: DeviceCheckInput }
  | { found: true; kind: 'CREDENTIAL'; verification: CredentialVerification; integrity: IntegrityKind; timeline: CredentialTimelineEntry[]; olderEntriesExist: boolean; device: DeviceCheckInput }
  | { found: true; kind: 'OTHER'; recordKind: string };

/**
 * One Query (readRecordWindow), then the same pure builders the JSON routes use, so a page can
 * never say something the JSON does not: resolveObject for living objects, commercialProofEvidence
 * for commercial proofs, verifyCredential for credentials. `device` is what the page's in-browser check re-verifies: the version
 * shown exactly as logged, its evidence, and the verifier keys the service publishes.
 */
export async function readRecordForPage(reference: string, baseUrl: string, timelineWindow: number, now = new Date().toISOString()): Promise<PageRead> {
  const window = await environmentRecords().readWindow<unknown, unknown, unknown>(reference, now, timelineWindow);
  if (!window.exists) return { found: false };
  const keys = trustedLedgerKeys();
  if (window.kind === 'OBJECT') {
    const entries = window.entries as ObjectWindowEntry[];
    const head = entries[0]?.head;
    const integrity = head ? assessIntegrity(head, entries[0].headText) : { confirmed: false };
    const resolution = resolveObject({ reference, entries, evaluation: { at: now, historical: false }, integrityConfirmed: integrity.confirmed, baseUrl });
    const device = head ? { record: head.content, evidence: head.evidence ?? undefined, verifierKeys: keys } : undefined;
    const kind: IntegrityKind = head ? integrityKind(head, integrity.confirmed, keys.length > 0) : 'NO_EVIDENCE';
    return { found: true, kind: 'OBJECT', view: { resolution, integrity: kind }, olderEntriesExist: window.more, device };
  }
  if (window.kind === COMMERCIAL_PROOF_KIND) {
    const entries = window.entries as ProofWindowEntry[];
    const newest = entries[0];
    // A proof issued after the service clock is not held yet (as the JSON route answers).
    if (!newest) return { found: false };
    const record = publicProof(newest.head.content);
    const integrity = inspectIntegrity({ ...newest.head, content: record }, keys);
    const evidence = commercialProofEvidence({ newest, integrity, now, baseUrl });
    const device = { record, evidence: newest.head.evidence ?? undefined, verifierKeys: keys };
    const kind = integrityKind(newest.head, integrity.confirmed, keys.length > 0);
    return { found: true, kind: 'COMMERCIAL_PROOF', evidence, integrity: kind, timeline: entries.map((e) => e.entry).reverse(), olderEntriesExist: window.more, device };
  }
  if (window.kind === CREDENTIAL_KIND) {
    const entries = window.entries as CredentialWindowEntry[];
    const newest = entries[0];
    // A credential recorded after the service clock is not held yet (as the JSON route answers).
    if (!newest) return { found: false };
    const integrity = assessIntegrity(newest.head, newest.headText, keys);
    const verification = verifyCredential({ newest, evaluatedAt: now, integrity, baseUrl });
    const device = { record: newest.head.content, evidence: newest.head.evidence ?? undefined, verifierKeys: keys };
    const kind = integrityKind(newest.head, integrity.confirmed, keys.length > 0);
    return { found: true, kind: 'CREDENTIAL', verification, integrity: kind, timeline: entries.map((e) => e.entry), olderEntriesExist: window.more, device };
  }
  return { found: true, kind: 'OTHER', recordKind: window.kind ?? 'UNKNOWN' };
}

/** The ledger's key route, linked from pages only when the contract publishes it. */
export const ledgerUrl = (baseUrl: string): string | undefined => (GET_PATHS.includes('/v1/ledger') ? `${baseUrl}/v1/ledger` : undefined);
