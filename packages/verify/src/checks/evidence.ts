import { CanonicalizationError, recordLeafHashOf } from './canonical';
import { openSignedCheckpointOf, parseCheckpointText, type Checkpoint, type SignedCheckpoint } from './checkpoint';
import type { Steps } from './crypto-steps';
import { bytesEqual, decodeBase64Strict, encodeBase64 } from './encoding';
import { evidenceShapeProblems, type LogEvidence } from './evidence-format';
import { HASH_SIZE, rootFromInclusionProof } from './merkle';
import { keyIdHex, parseNote, parseVerifierKeyOf, type VerifierKey } from './note';

/** The checks of ledger evidence, in the order they are reported. */
export const EVIDENCE_CHECK_NAMES = ['evidence-format', 'record-version', 'canonical-hash', 'inclusion-proof', 'checkpoint-signature'] as const;

export interface EvidenceCheck {
  name: (typeof EVIDENCE_CHECK_NAMES)[number];
  ok: boolean;
  detail: string;
}

export interface EvidenceVerification {
  ok: boolean;
  checks: EvidenceCheck[];
}

/** Parsed keys by their text: parsing hashes the key for its id, which is worth doing once per key. */
const parsedKeys = new Map<string, VerifierKey | string>();

/** The trusted verifier keys parsed, and why any could not be (a malformed key trusts nothing). */
function* trustedVerifiersOf(trustedKeys: readonly string[]): Steps<{ keys: VerifierKey[]; refused: string[] }> {
  const keys: VerifierKey[] = [];
  const refused: string[] = [];
  for (const text of trustedKeys) {
    let parsed = parsedKeys.get(text);
    if (parsed === undefined) {
      try {
        parsed = yield* parseVerifierKeyOf(text);
      } catch (error) {
        parsed = (error as Error).message;
      }
      if (parsedKeys.size > 64) parsedKeys.clear();
      parsedKeys.set(text, parsed);
    }
    if (typeof parsed === 'string') refused.push(parsed);
    else keys.push(parsed);
  }
  return { keys, refused };
}

/**
 * Opened checkpoints by note text and trusted keys. Every record loaded together shares one
 * checkpoint, so a warm function checks each signature once instead of on every read. The
 * outcome depends only on the key, so remembering it changes no answer.
 */
const openedCheckpoints = new Map<string, SignedCheckpoint>();
const OPENED_CHECKPOINTS_KEPT = 256;

function* openCheckpoint(note: string, keys: readonly VerifierKey[]): Steps<SignedCheckpoint> {
  const key = `${keys.map((k) => k.encoded).join(',')}\n${note}`;
  let opened = openedCheckpoints.get(key);
  if (!opened) {
    opened = yield* openSignedCheckpointOf(note, keys);
    if (openedCheckpoints.size >= OPENED_CHECKPOINTS_KEPT) openedCheckpoints.delete(openedCheckpoints.keys().next().value!);
    openedCheckpoints.set(key, opened);
  }
  return opened;
}

const pass = (name: EvidenceCheck['name'], detail: string): EvidenceCheck => ({ name, ok: true, detail });
const fail = (name: EvidenceCheck['name'], detail: string): EvidenceCheck => ({ name, ok: false, detail });

function checkVersion(record: unknown, evidence: LogEvidence): EvidenceCheck {
  const version = (record as { version?: unknown } | null)?.version;
  if (version === undefined) return pass('record-version', 'the record carries no version field; the leaf hash binds its whole content');
  if (version !== evidence.version) return fail('record-version', `the record is version ${String(version)}, the evidence covers version ${evidence.version}`);
  return pass('record-version', `the evidence covers version ${evidence.version}, the version shown`);
}

function checkCanonicalHash(computed: Uint8Array | string, evidence: LogEvidence): EvidenceCheck {
  if (typeof computed === 'string') return fail('canonical-hash', computed);
  const claimed = decodeBase64Strict(evidence.leafHash);
  if (!claimed || claimed.length !== HASH_SIZE) return fail('canonical-hash', 'the evidence leafHash is not base64 of 32 bytes');
  if (!bytesEqual(claimed, computed)) {
    return fail('canonical-hash', `SHA-256(0x00 || JCS(record)) is ${encodeBase64(computed)}, the evidence says ${evidence.leafHash}: the record is not the content that was logged`);
  }
  return pass('canonical-hash', `SHA-256(0x00 || JCS(record)) = ${evidence.leafHash}, as logged`);
}

/** The `checkpoint-signature` check of a checkpoint note alone (ledger evidence adds that it names the same origin). */
export function* checkCheckpointSignatureOf(note: string, trustedKeys: readonly string[]): Steps<{ check: EvidenceCheck; checkpoint: Checkpoint | null }> {
  const { keys, refused } = yield* trustedVerifiersOf(trustedKeys);
  if (keys.length === 0) {
    return { check: fail('checkpoint-signature', refused.length > 0 ? `no usable trusted key (${refused.join('; ')})` : 'no trusted verifier key was given'), checkpoint: null };
  }
  const opened = yield* openCheckpoint(note, keys);
  if (!opened.ok) return { check: fail('checkpoint-signature', opened.reason), checkpoint: null };
  const { checkpoint, signer } = opened;
  return { check: pass('checkpoint-signature', `checkpoint of ${checkpoint.origin} at tree size ${checkpoint.treeSize} signed by ${signer.name}+${keyIdHex(signer.keyId)} (Ed25519)`), checkpoint };
}

function* checkSignature(evidence: LogEvidence, trustedKeys: readonly string[]): Steps<EvidenceCheck> {
  const { check, checkpoint } = yield* checkCheckpointSignatureOf(evidence.checkpoint, trustedKeys);
  if (checkpoint && evidence.origin !== checkpoint.origin) return fail('checkpoint-signature', `the evidence names origin ${evidence.origin}, the checkpoint ${checkpoint.origin}`);
  return check;
}

function* checkInclusion(computed: Uint8Array | string, evidence: LogEvidence): Steps<EvidenceCheck> {
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpointText(parseNote(evidence.checkpoint).text);
  } catch (error) {
    return fail('inclusion-proof', `there is no checkpoint root to check against: ${(error as Error).message}`);
  }
  if (checkpoint.treeSize !== evidence.treeSize) return fail('inclusion-proof', `the evidence says tree size ${evidence.treeSize}, the checkpoint ${checkpoint.treeSize}`);
  if (typeof computed === 'string') return fail('inclusion-proof', 'the record has no leaf hash to prove');
  const proof: Uint8Array[] = [];
  for (const [i, text] of evidence.inclusionProof.entries()) {
    const hash = decodeBase64Strict(text);
    if (!hash) return fail('inclusion-proof', `proof hash ${i} is not base64`);
    proof.push(hash);
  }
  let root: Uint8Array;
  try {
    root = yield* rootFromInclusionProof(evidence.leafIndex, checkpoint.treeSize, computed, proof);
  } catch (error) {
    return fail('inclusion-proof', (error as Error).message);
  }
  if (!bytesEqual(root, checkpoint.rootHash)) {
    return fail('inclusion-proof', `the proof leads to root ${encodeBase64(root)}, the checkpoint's root is ${encodeBase64(checkpoint.rootHash)}`);
  }
  return pass('inclusion-proof', `leaf ${evidence.leafIndex} is in the tree of size ${checkpoint.treeSize} with root ${encodeBase64(root)} (${proof.length} hashes)`);
}

/**
 * Re-checks ledger evidence against the record shown, offline: the record's canonical hash, its
 * inclusion proof up to the checkpoint root, and the checkpoint's signature by a trusted key
 * (C2SP verifier keys `<name>+<hex key id>+<base64(0x01 || key)>`). Every check is reported,
 * so a caller sees which one failed. Pure: no clock, no I/O; the platform answers the hashes and
 * signature checks (WebCrypto in browsers and in this package's API, node:crypto in the service's
 * functions: functions/domain/ledger/node-crypto.ts).
 */
export function* verifyEvidenceSteps(record: unknown, evidence: unknown, trustedKeys: readonly string[]): Steps<EvidenceVerification> {
  if (evidence === null || evidence === undefined) {
    return { ok: false, checks: EVIDENCE_CHECK_NAMES.map((name) => fail(name, name === 'evidence-format' ? 'there is no ledger evidence: integrity cannot be confirmed' : 'not checked: there is no evidence')) };
  }
  const problems = evidenceShapeProblems(evidence);
  if (problems.length > 0) {
    const detail = 'not checked: the evidence is malformed';
    return { ok: false, checks: EVIDENCE_CHECK_NAMES.map((name) => fail(name, name === 'evidence-format' ? problems.join('; ') : detail)) };
  }
  const e = evidence as LogEvidence;
  let computed: Uint8Array | string;
  try {
    computed = yield* recordLeafHashOf(record);
  } catch (error) {
    computed = error instanceof CanonicalizationError ? error.message : `the record cannot be hashed: ${(error as Error).message}`;
  }
  const checks: EvidenceCheck[] = [
    pass('evidence-format', `${e.format}: leaf ${e.leafIndex} of ${e.origin}, tree size ${e.treeSize}`),
    checkVersion(record, e),
    checkCanonicalHash(computed, e),
    yield* checkInclusion(computed, e),
    yield* checkSignature(e, trustedKeys),
  ];
  return { ok: checks.every((c) => c.ok), checks };
}
