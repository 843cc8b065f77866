import { decodeBase64Strict, encodeBase64 } from './encoding';
import { HASH_SIZE } from './merkle';
import type { Steps } from './crypto-steps';
import { checkNoteText, isValidKeyName, verifyNoteOf, type VerifierKey } from './note';

/**
 * A C2SP tlog checkpoint (https://c2sp.org/tlog-checkpoint): the note text
 *   <origin>\n<tree size in decimal>\n<base64 root hash>\n[extension lines]
 * The origin names the log; it is also the name of the log's signing key.
 */
export interface Checkpoint {
  origin: string;
  treeSize: number;
  rootHash: Uint8Array;
  extensions: string[];
}

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

export function checkpointText(checkpoint: Checkpoint): string {
  const lines = [checkpoint.origin, String(checkpoint.treeSize), encodeBase64(checkpoint.rootHash), ...checkpoint.extensions];
  const text = `${lines.join('\n')}\n`;
  parseCheckpointText(text);
  return text;
}

export function parseCheckpointText(text: string): Checkpoint {
  try {
    checkNoteText(text);
  } catch (error) {
    throw new CheckpointError((error as Error).message);
  }
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw new CheckpointError('a checkpoint has an origin, a tree size and a root hash line');
  const [origin, size, root, ...extensions] = lines;
  if (!isValidKeyName(origin)) throw new CheckpointError('the checkpoint origin is empty or contains spaces or "+"');
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size))) throw new CheckpointError('the checkpoint tree size is not a decimal whole number');
  const rootHash = decodeBase64Strict(root);
  if (!rootHash || rootHash.length !== HASH_SIZE) throw new CheckpointError('the checkpoint root hash is not base64 of 32 bytes');
  if (extensions.some((line) => line.length === 0)) throw new CheckpointError('a checkpoint extension line is empty');
  return { origin, treeSize: Number(size), rootHash, extensions };
}

export type SignedCheckpoint =
  | { ok: true; checkpoint: Checkpoint; /** The trusted key named after the checkpoint's origin that signed it. */ signer: VerifierKey }
  | { ok: false; reason: string };

/**
 * A checkpoint note opened with the log keys a verifier trusts: a valid Ed25519 signature by a
 * trusted key (signed-note rules: a failing signature by a trusted key rejects the note), the text
 * a well-formed checkpoint, and a signature by the trusted key named after its origin (the log's
 * own key, not merely some key the verifier trusts).
 */
export function* openSignedCheckpointOf(message: string, keys: readonly VerifierKey[]): Steps<SignedCheckpoint> {
  const opened = yield* verifyNoteOf(message, keys);
  if (!opened.ok) return { ok: false, reason: `the checkpoint is not signed by a trusted key: ${opened.reason}` };
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpointText(opened.note.text);
  } catch (error) {
    return { ok: false, reason: `the signed note is not a checkpoint: ${(error as Error).message}` };
  }
  const signer = opened.verifiedBy.find((k) => k.name === checkpoint.origin);
  if (!signer) return { ok: false, reason: `the checkpoint of origin ${checkpoint.origin} is signed only by keys of other names` };
  return { ok: true, checkpoint, signer };
}

