import { openSignedCheckpointOf } from '../checks/checkpoint';
import { runStepsAsync, type AsyncCrypto } from '../checks/crypto-steps';
import { encodeBase64 } from '../checks/encoding';
import { HANDOVER_FORMAT, parseLedgerEntry, SUCCESSION_FORMAT, type HandoverEntry, type SuccessionEntry } from '../checks/handover';
import { parseVerifierKeyOf, type VerifierKey } from '../checks/note';
import { webCrypto } from '../web-crypto';
import { leafHash } from './hashing';
import type { LogFetch, MonitorState } from './monitor';
import { decodeEntryBundle, tilePath, TILE_WIDTH } from './tlog-tiles';

/** The outcome of checking a handover: the new log's key (the one the old log named) or why it is refused. */
export type HandoverCheck = { ok: true; successorKey: VerifierKey; handover: HandoverEntry } | { ok: false; reason: string };

async function entryAt(fetch: LogFetch, index: number, size: number): Promise<Buffer | null> {
  const bundle = Math.floor(index / TILE_WIDTH);
  const width = Math.min(TILE_WIDTH, size - bundle * TILE_WIDTH);
  const bytes = await fetch(tilePath({ level: 'entries', index: bundle, width }));
  return bytes ? (decodeEntryBundle(bytes)[index - bundle * TILE_WIDTH] ?? null) : null;
}

/**
 * Checks a key change between two logs (docs/ledger.md#when-the-key-must-change), given the old
 * log as a monitor verified it to its final checkpoint (`oldState`, `oldLeaves`) and the new log's
 * first entry, which the caller then verifies in the new log's tree (its leaf hash is returned
 * through `handoverLeaf`). Both keys must consent: the old log's last entry (covered by the
 * verified old tree) names the successor's origin and key; the new log's first entry binds exactly
 * the old log's final checkpoint, signed by the old key.
 */
export async function checkHandover(options: {
  oldFetch: LogFetch;
  newFetch: LogFetch;
  oldState: MonitorState;
  oldLeaves: readonly Buffer[];
  oldKeys: readonly VerifierKey[];
  newOrigin: string;
  newSize: number;
  crypto?: AsyncCrypto;
}): Promise<HandoverCheck & { handoverLeaf?: Buffer }> {
  const { oldState: state } = options;
  const crypto = options.crypto ?? webCrypto();
  const last = await entryAt(options.oldFetch, state.treeSize - 1, state.treeSize);
  if (!last || !leafHash(last).equals(options.oldLeaves[state.treeSize - 1] ?? Buffer.alloc(0))) {
    return { ok: false, reason: `the old log's last entry (${state.treeSize - 1}) is not served as verified` };
  }
  const succession = parseLedgerEntry<SuccessionEntry>(last, SUCCESSION_FORMAT);
  if (typeof succession === 'string') return { ok: false, reason: `the old log ${state.origin} did not consent: its last entry is no succession (${succession})` };
  if (succession.origin !== state.origin || succession.successor.origin !== options.newOrigin) {
    return { ok: false, reason: `the old log's last entry hands ${succession.origin} over to ${succession.successor.origin}, not ${state.origin} to ${options.newOrigin}` };
  }
  let successorKey: VerifierKey;
  try {
    successorKey = await runStepsAsync(parseVerifierKeyOf(succession.successor.verifierKey), crypto);
  } catch (error) {
    return { ok: false, reason: `the successor key the old log names is malformed: ${(error as Error).message}` };
  }
  const first = await entryAt(options.newFetch, 0, options.newSize);
  if (!first) return { ok: false, reason: "the new log's first entry is not served" };
  const handover = parseLedgerEntry<HandoverEntry>(first, HANDOVER_FORMAT);
  if (typeof handover === 'string') return { ok: false, reason: `the new log's first entry is no handover (${handover})` };
  if (handover.origin !== options.newOrigin || handover.verifierKey !== succession.successor.verifierKey) {
    return { ok: false, reason: `the new log's first entry names ${handover.origin} with another key than the one the old log handed over to` };
  }
  const bound = await runStepsAsync(openSignedCheckpointOf(handover.predecessor.checkpoint, options.oldKeys), crypto);
  if (!bound.ok) return { ok: false, reason: `the handover binds a checkpoint the old key did not sign: ${bound.reason}` };
  const root = encodeBase64(bound.checkpoint.rootHash);
  if (bound.checkpoint.origin !== state.origin || bound.checkpoint.treeSize !== state.treeSize || root !== state.rootHash) {
    return {
      ok: false,
      reason: `the handover binds ${bound.checkpoint.origin} at size ${bound.checkpoint.treeSize}, not the old log's final checkpoint (size ${state.treeSize}, root ${state.rootHash}) the monitor verified`,
    };
  }
  if (handover.predecessor.treeSize !== state.treeSize || handover.predecessor.rootHash !== root) {
    return { ok: false, reason: "the handover's stated size or root differ from the checkpoint it binds" };
  }
  return { ok: true, successorKey, handover, handoverLeaf: leafHash(first) };
}
