/**
 * A key change of the ledger (docs/ledger.md#when-the-key-must-change) is two entries, one in each
 * log, so that it needs both keys' consent:
 *  - the old log's last entry (a succession) names the log that continues it and that log's
 *    verifier key; the old key signs it in the old log's final checkpoint;
 *  - the new log's first entry (a handover) binds the old log's final checkpoint: its signed note,
 *    tree size and root hash; the new key signs it in every checkpoint of the new log.
 * Each is an entry like any other (RFC 8785 canonical JSON), in the C2SP tile log of its own log.
 */
export const SUCCESSION_FORMAT = 'svc.ledger-succession.v1';
export const HANDOVER_FORMAT = 'svc.ledger-handover.v1';

export interface SuccessionEntry {
  format: typeof SUCCESSION_FORMAT;
  /** The log this entry ends. */
  origin: string;
  successor: { origin: string; verifierKey: string };
  at: string;
}

export interface HandoverEntry {
  format: typeof HANDOVER_FORMAT;
  /** The log this entry begins, and its key. */
  origin: string;
  verifierKey: string;
  predecessor: { origin: string; treeSize: number; rootHash: string; checkpoint: string };
  at: string;
}

/** The entry as JSON of the given format, or the reason it is not one. */
export function parseLedgerEntry<T extends SuccessionEntry | HandoverEntry>(bytes: Uint8Array, format: T['format']): T | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return 'it is not JSON';
  }
  const found = (parsed as { format?: unknown } | null)?.format;
  return found === format ? (parsed as T) : `it is ${typeof found === 'string' ? `a ${found} entry` : 'a record version'}, not a ${format} entry`;
}
