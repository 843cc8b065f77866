import type { RecordChange } from './ports/records';

/**
 * What a new version's evidence says in place of its checkpoint until the batch's checkpoint is
 * signed (functions/ledger-writer/batch.ts). The sequencer journals a batch while the key signs
 * its checkpoint, so the journal's heads name the checkpoint by this word, and whoever writes them
 * to the table puts the signed checkpoint in its place: the batch itself once signed, or the writer
 * that finishes its journal, from the head the batch published (the same note). No head is ever
 * stored with it (head-text.ts refuses one).
 */
export const CHECKPOINT_TO_COME = 'the batch checkpoint, signed while its journal is stored';

interface EvidenceWithCheckpoint {
  checkpoint?: unknown;
}

/** Puts `checkpoint` in the place of CHECKPOINT_TO_COME in the new versions' evidence of `records` (their heads are changed in place). */
export function withCheckpoint(records: readonly RecordChange[], checkpoint: string): void {
  for (const change of records) {
    for (const entry of change.entries) {
      const evidence = (entry.head as { evidence?: EvidenceWithCheckpoint | null } | null)?.evidence;
      if (evidence?.checkpoint === CHECKPOINT_TO_COME) evidence.checkpoint = checkpoint;
    }
  }
}

/** The same in a head's JSON text (a journaled head, journal.ts). */
export const textWithCheckpoint = (headText: string, checkpoint: string): string => headText.replaceAll(JSON.stringify(CHECKPOINT_TO_COME), JSON.stringify(checkpoint));

/** Whether a head's text still waits for its checkpoint. */
export const waitsForCheckpoint = (headText: string): boolean => headText.includes(JSON.stringify(CHECKPOINT_TO_COME));
