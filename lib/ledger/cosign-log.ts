import { checkCosignatures } from '../../functions/domain/ledger/node-crypto';
import type { WitnessKey } from '#verify/checks/cosignature';
import { parseCheckpointText } from '#verify/checks/checkpoint';
import { parseNote } from '#verify/checks/note';
import { CHECKPOINT_PATH, checkpointHistoryPath } from '#verify/node/tlog-tiles';
import type { TileStore } from '../../functions/ledger-writer/tile-store';

/** The note with extra signature lines appended (lines already present are not repeated). */
export function addSignatureLines(noteMessage: string, lines: readonly string[]): string {
  const present = new Set(noteMessage.slice(noteMessage.lastIndexOf('\n\n') + 2).split('\n').filter(Boolean));
  const added = lines.map((l) => l.replace(/\n$/, '')).filter((l) => l && !present.has(l));
  const out = noteMessage + added.map((l) => `${l}\n`).join('');
  parseNote(out);
  return out;
}

/**
 * Adds witnesses' cosignature lines (C2SP tlog-cosignature) to the log's published checkpoint:
 * each line must come from a configured witness and verify for the checkpoint as it is now; the
 * cosigned note replaces `checkpoint` and the history copy for its size. Nothing else changes:
 * the log's own signature and the tree are the same, so evidence already issued stays valid.
 */
export async function addCosignatures(store: TileStore, lines: readonly string[], witnesses: readonly WitnessKey[]): Promise<{ treeSize: number; note: string; added: string[] }> {
  const current = await store.read(CHECKPOINT_PATH);
  if (!current) throw new Error(`the tile log at ${store.location} has no checkpoint to cosign`);
  const note = current.toString('utf8');
  const { text } = parseNote(note);
  const treeSize = parseCheckpointText(text).treeSize;
  const added: string[] = [];
  for (const raw of lines.map((l) => l.trim()).filter(Boolean)) {
    const single = `${text}\n${raw}\n`;
    const witness = witnesses.find((w) => checkCosignatures(single, { witnesses: [w], required: 1 }).ok);
    if (!witness) throw new Error(`not a valid cosignature of the current checkpoint (size ${treeSize}) by a configured witness: ${raw.slice(0, 80)}`);
    added.push(raw);
  }
  const cosigned = addSignatureLines(note, added);
  const bytes = Buffer.from(cosigned, 'utf8');
  await store.write({ path: checkpointHistoryPath(treeSize), bytes, immutable: false });
  await store.write({ path: CHECKPOINT_PATH, bytes, immutable: false });
  return { treeSize, note: cosigned, added };
}
