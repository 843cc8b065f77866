import { operations } from '../contract/operations';
import { assessIntegrity } from '../domain/evidence';
import { resolveObject, type ObjectWindowEntry } from '../domain/objects';
import type { ResolutionView } from '../domain/surfaces/presentation';
import { linkIfPublished } from '../domain/surfaces/endpoints';
import { readRecordWindow } from '../store/records';

export type PageRead =
  | { found: false }
  | { found: true; kind: 'OBJECT'; view: ResolutionView; olderEntriesExist: boolean }
  | { found: true; kind: string };

/** One Query (readRecordWindow) and the same pure resolution the JSON route returns. */
export async function readObjectForPage(reference: string, baseUrl: string, timelineWindow: number, now = new Date().toISOString()): Promise<PageRead> {
  const window = await readRecordWindow<ObjectWindowEntry['entry'], ObjectWindowEntry['view'], ObjectWindowEntry['head']>(reference, now, timelineWindow);
  if (!window.exists) return { found: false };
  if (window.kind !== 'OBJECT') return { found: true, kind: window.kind ?? 'UNKNOWN' };
  const entries = window.entries as ObjectWindowEntry[];
  const integrity = entries.length > 0 ? assessIntegrity(entries[0].head) : { confirmed: false, reason: 'Nothing is recorded at this instant.' };
  const resolution = resolveObject({ reference, entries, evaluation: { at: now, historical: false }, integrityConfirmed: integrity.confirmed, baseUrl });
  return { found: true, kind: 'OBJECT', view: { resolution, integrityReason: integrity.reason }, olderEntriesExist: window.more };
}

/** The ledger's key route, linked from pages only when the contract publishes it. */
export const ledgerUrl = (baseUrl: string): string | undefined => linkIfPublished(operations, baseUrl, '/v1/ledger');
