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

/**
 * What a new version's evidence says in place of all of it while its place in the log is not
 * known: a batch planned in parts (functions/ledger-writer/parts.ts) has each part's new versions
 * logged only once every part is planned, so a part names each of its new versions by its ordinal
 * among them (the order they are logged in). Whoever writes the part puts the evidence in its
 * place: the part's writer, given the batch's placement, or the writer that finishes the batch's
 * journal, from the leaves the batch stored. No head is ever stored with it (head-text.ts refuses one).
 */
export const EVIDENCE_TO_COME = 'the leaf of its batch, placed once every part is planned';

export interface EvidenceToCome {
  toCome: typeof EVIDENCE_TO_COME;
  /** The new version's place among its part's new versions, from 0. */
  ordinal: number;
}

export const evidenceToCome = (ordinal: number): EvidenceToCome => ({ toCome: EVIDENCE_TO_COME, ordinal });

/** The evidence of the new version that is its part's `ordinal`-th, version `version`. */
export type PlacedEvidence = (ordinal: number, version: number) => unknown;

const toComeOf = (evidence: unknown): EvidenceToCome | null => ((evidence as EvidenceToCome | null)?.toCome === EVIDENCE_TO_COME ? (evidence as EvidenceToCome) : null);

/** Puts each placed evidence in the place of an EvidenceToCome in the heads of `records` (changed in place). */
export function withPlacedEvidence(records: readonly RecordChange[], placed: PlacedEvidence): void {
  for (const change of records) {
    for (const entry of change.entries) {
      const head = entry.head as { version?: number; evidence?: unknown } | null;
      const toCome = toComeOf(head?.evidence);
      if (head && toCome) head.evidence = placed(toCome.ordinal, head.version!);
    }
  }
}

/** The same in a head's JSON text (a journaled head, journal.ts): the text as it would have been written with the evidence in place. */
export function textWithPlacedEvidence(headText: string, placed: PlacedEvidence): string {
  if (!headText.includes(JSON.stringify(EVIDENCE_TO_COME))) return headText;
  const head = JSON.parse(headText) as { version: number; evidence: unknown };
  const toCome = toComeOf(head.evidence);
  if (toCome) head.evidence = placed(toCome.ordinal, head.version);
  return JSON.stringify(head);
}

/** Whether a head's text still waits for its place in the log (or its checkpoint): never stored so. */
export const waitsForEvidence = (headText: string): boolean => waitsForCheckpoint(headText) || headText.includes(JSON.stringify(EVIDENCE_TO_COME));
