import { parseCheckpointText } from './checks/checkpoint';
import { checkWitnessedOf, parseWitnessKeyOf, type WitnessKey } from './checks/cosignature';
import { verifyConsistencyOf } from './checks/consistency';
import { runStepsAsync, type AsyncCrypto, type Steps } from './checks/crypto-steps';
import { decodeBase64Strict, encodeBase64 } from './checks/encoding';
import { checkCheckpointSignatureOf, EVIDENCE_CHECK_NAMES, verifyEvidenceSteps } from './checks/evidence';
import { isLogEvidence } from './checks/evidence-format';
import { HASH_SIZE } from './checks/merkle';
import { parseNote, parseVerifierKeyOf, type VerifierKey } from './checks/note';
import { evidenceSubject, type ShownField, type SubjectKind } from './responses';
import { webCrypto } from './web-crypto';

/**
 * The five checks of ledger evidence, in the order they are reported; then, for credential results
 * and status lists, that what they show beside the logged record is the record's; then the
 * optional witness check.
 */
export type CheckName = (typeof EVIDENCE_CHECK_NAMES)[number] | 'shown-fields' | 'witness-cosignatures' | 'retired-key-validity';

export interface Check {
  name: CheckName;
  /** The outcome: true when the check passed. */
  ok: boolean;
  /** Why, in words: what was compared with what. */
  detail: string;
}

export interface TrustOptions {
  /**
   * The log's verifier keys you trust (C2SP form `<name>+<hex key id>+<base64(0x01 || key)>`, as
   * /v1/ledger publishes them). Pin them in your own configuration: keys taken from the answer
   * being verified, or from the same service at the same moment, prove nothing.
   */
  trustedKeys: readonly string[];
  /** Witness keys (`<name>+<hex key id>+<base64(0x04 || key)>`) whose cosignatures you require. */
  witnesses?: readonly string[];
  /** How many distinct witnesses of `witnesses` must have cosigned (k of n); default: all of them. */
  quorum?: number;
  /** The primitives; default: this platform's WebCrypto (Ed25519, SHA-256). */
  crypto?: AsyncCrypto;
}

export interface EvidenceOptions extends TrustOptions {
  /**
   * Logs a key change ended (GET /v1/ledger `logs` with role `retired`): their key is valid for
   * checkpoints of at most the final tree size. Evidence of such a log with a larger checkpoint was
   * signed after the log ended, which only a compromised key can do: it fails `retired-key-validity`.
   */
  retiredLogs?: readonly { origin: string; validUpToTreeSize: number }[];
  /**
   * Other copies of the evidence's checkpoint, e.g. the log's `checkpoints/<tree size>`: witnesses
   * cosign after the log signs, so their lines are there rather than in evidence issued earlier.
   * Only copies of the same checkpoint text count.
   */
  checkpointCopies?: readonly string[];
}

export interface RecordResult {
  /** True only when every check passed. */
  ok: boolean;
  /** The record version the evidence covers. */
  version: number | null;
  /** The log: the checkpoint's origin, also the name of the log's key. */
  origin: string | null;
  leafIndex: number | null;
  treeSize: number | null;
  /** Each check, its outcome and why, in order. */
  checks: Check[];
}

export interface EvidenceResult extends RecordResult {
  kind: SubjectKind;
  /** The reference, credential id or status list id of the record shown. */
  reference: string | null;
  /** What the service itself said about this evidence, when the answer says; reported, never relied on. */
  serviceSaid: boolean | null;
}

const crypto = (options: { crypto?: AsyncCrypto }): AsyncCrypto => options.crypto ?? webCrypto();

function* recordChecksOf(record: unknown, evidence: unknown, trustedKeys: readonly string[]): Steps<RecordResult> {
  const { ok, checks } = yield* verifyEvidenceSteps(record, evidence, trustedKeys);
  const e = isLogEvidence(evidence) ? evidence : null;
  return { ok, version: e?.version ?? null, origin: e?.origin ?? null, leafIndex: e?.leafIndex ?? null, treeSize: e?.treeSize ?? null, checks: [...checks] };
}

/**
 * The five checks of ledger evidence for a record you hold and the evidence logged for it (what
 * `verifyEvidence` runs on the record and evidence it finds in an answer): `evidence-format`,
 * `record-version`, `canonical-hash`, `inclusion-proof`, `checkpoint-signature`.
 */
export function verifyRecord(record: unknown, evidence: unknown, options: Pick<TrustOptions, 'trustedKeys' | 'crypto'>): Promise<RecordResult> {
  return runStepsAsync(recordChecksOf(record, evidence, options.trustedKeys), crypto(options));
}

function* witnessCheckOf(note: string, copies: readonly string[], options: TrustOptions): Steps<Check> {
  const witnesses: WitnessKey[] = [];
  for (const text of options.witnesses ?? []) {
    try {
      witnesses.push(yield* parseWitnessKeyOf(text));
    } catch (error) {
      return { name: 'witness-cosignatures', ok: false, detail: `the witness key ${text.slice(0, 60)} is unusable: ${(error as Error).message}` };
    }
  }
  const check = yield* checkWitnessedOf(note, copies, { witnesses, required: options.quorum ?? witnesses.length });
  return { name: 'witness-cosignatures', ok: check.ok, detail: check.detail };
}

/** Fields shown beside the record equal the record's (compared as JSON values: strings, numbers, null). */
function shownFieldsCheck(fields: readonly ShownField[]): Check {
  const differing = fields.filter((f) => JSON.stringify(f.shownValue ?? null) !== JSON.stringify(f.loggedValue ?? null));
  if (differing.length > 0) {
    return { name: 'shown-fields', ok: false, detail: differing.map((f) => `${f.shown} is not the logged record's ${f.logged}`).join('; ') };
  }
  return { name: 'shown-fields', ok: true, detail: `${fields.map((f) => f.shown).join(', ')}: as in the logged record` };
}

/** Evidence of a retired log is valid up to its final checkpoint only (docs/ledger.md#when-the-key-must-change). */
function retiredKeyCheck(retired: { origin: string; validUpToTreeSize: number }, treeSize: number | null): Check {
  const ok = treeSize !== null && treeSize <= retired.validUpToTreeSize;
  return {
    name: 'retired-key-validity',
    ok,
    detail: ok
      ? `${retired.origin} was retired at ${retired.validUpToTreeSize} entries; this checkpoint of ${treeSize} is within it`
      : `${retired.origin} was retired at ${retired.validUpToTreeSize} entries, but this checkpoint says ${treeSize ?? 'nothing'}: signed after the log ended, so by a compromised key`,
  };
}

const wantsWitnesses = (options: TrustOptions): boolean => (options.witnesses?.length ?? 0) > 0 || options.quorum !== undefined;

/**
 * Verifies the ledger evidence of an answer of the service, offline: an object resolution
 * (`/v1/objects/…`), a commercial proof (`/v1/commercial-proofs/…`), a credential verification
 * result (`/v1/credentials/verify/…`), a status list (`/v1/status-lists/…`) exactly as returned,
 * or a `{ record, evidence }` document. It re-hashes the record shown (RFC 8785 canonical JSON,
 * SHA-256), walks the inclusion proof to the checkpoint's root (RFC 9162) and checks the
 * checkpoint's Ed25519 signature with the keys you trust, and, when you name witnesses, their
 * cosignatures. Integrity only: it says nothing about authority or the current lifecycle.
 * Throws UnrecognizedResponseError when the answer is none of those.
 */
export async function verifyEvidence(answer: unknown, options: EvidenceOptions): Promise<EvidenceResult> {
  const subject = evidenceSubject(answer);
  return runStepsAsync(
    (function* (): Steps<EvidenceResult> {
      const result = yield* recordChecksOf(subject.record, subject.evidence, options.trustedKeys);
      if (subject.shownFields.length > 0) result.checks.push(shownFieldsCheck(subject.shownFields));
      const retired = options.retiredLogs?.find((log) => log.origin === result.origin);
      if (retired) result.checks.push(retiredKeyCheck(retired, result.treeSize));
      if (wantsWitnesses(options)) {
        const checkpoint = isLogEvidence(subject.evidence) ? subject.evidence.checkpoint : null;
        result.checks.push(checkpoint ? yield* witnessCheckOf(checkpoint, options.checkpointCopies ?? [], options) : { name: 'witness-cosignatures', ok: false, detail: 'not checked: there is no checkpoint' });
      }
      result.ok = result.checks.every((c) => c.ok);
      return { ...result, kind: subject.kind, reference: subject.reference, serviceSaid: subject.serviceSaid };
    })(),
    crypto(options),
  );
}

export interface CheckpointResult {
  /** True only when the log's signature and, when witnesses are named, their cosignatures verify. */
  ok: boolean;
  origin: string | null;
  treeSize: number | null;
  /** The root hash the checkpoint signs, base64. */
  rootHash: string | null;
  checks: Check[];
}

/**
 * Verifies a signed checkpoint note (C2SP tlog-checkpoint in a C2SP signed note, as
 * `<prefix>checkpoint`, `<prefix>checkpoints/<size>` and ledger evidence carry it): its Ed25519
 * signature by the trusted log key named after its origin, and, when you name witnesses, that
 * `quorum` of them (default all) cosigned it (C2SP tlog-cosignature, cosignature/v1).
 */
export async function verifyCheckpoint(note: string, options: TrustOptions): Promise<CheckpointResult> {
  return runStepsAsync(
    (function* (): Steps<CheckpointResult> {
      const { check, checkpoint } = yield* checkCheckpointSignatureOf(note, options.trustedKeys);
      const checks: Check[] = [check];
      if (wantsWitnesses(options)) checks.push(yield* witnessCheckOf(note, [], options));
      return {
        ok: checks.every((c) => c.ok),
        origin: checkpoint?.origin ?? null,
        treeSize: checkpoint?.treeSize ?? null,
        rootHash: checkpoint ? encodeBase64(checkpoint.rootHash) : null,
        checks,
      };
    })(),
    crypto(options),
  );
}

/** A tree of the log: a checkpoint (a note, or what verifyCheckpoint returned), or its size and root. */
export type TreeHead = string | { treeSize: number | null; rootHash: string | null };

/** A consistency proof: the hashes (base64), or the answer of `/v1/ledger/consistency` (`{ from, to, proof }`). */
export type ConsistencyProof = readonly string[] | { from: number; to: number; proof: readonly string[] };

export interface ConsistencyResult {
  /** True when the tree of size `from` is a prefix of the tree of size `to`: the log only grew. */
  ok: boolean;
  from: number | null;
  to: number | null;
  detail: string;
}

function treeOf(head: TreeHead): { size: number; root: Uint8Array } | string {
  if (typeof head === 'string') {
    try {
      const checkpoint = parseCheckpointText(parseNote(head).text);
      return { size: checkpoint.treeSize, root: checkpoint.rootHash };
    } catch (error) {
      return `not a checkpoint: ${(error as Error).message}`;
    }
  }
  const root = typeof head?.rootHash === 'string' ? decodeBase64Strict(head.rootHash) : null;
  if (!Number.isSafeInteger(head?.treeSize) || !root || root.length !== HASH_SIZE) return 'not a tree size with a base64 root hash of 32 bytes';
  return { size: head.treeSize as number, root };
}

/**
 * Verifies an RFC 9162 §2.1.4 consistency proof: that the log of the `older` tree is a prefix of the
 * log of the `newer` one, i.e. nothing logged before was changed or removed. The roots come from
 * the two trees you pass; the proof from anyone, e.g. `/v1/ledger/consistency?from=M&to=N`. Given
 * `trustedKeys`, checkpoint notes are verified first (verifyCheckpoint); without, the roots are
 * taken as given, so pass checkpoints you verified yourself.
 */
export async function verifyConsistency(
  older: TreeHead,
  newer: TreeHead,
  proof: ConsistencyProof,
  options: { trustedKeys?: readonly string[]; crypto?: AsyncCrypto } = {},
): Promise<ConsistencyResult> {
  const first = treeOf(older);
  const second = treeOf(newer);
  if (typeof first === 'string') return { ok: false, from: null, to: null, detail: `the older tree is ${first}` };
  if (typeof second === 'string') return { ok: false, from: first.size, to: null, detail: `the newer tree is ${second}` };
  const span = { from: first.size, to: second.size };
  if (options.trustedKeys) {
    for (const [which, head] of [['older', older], ['newer', newer]] as const) {
      if (typeof head !== 'string') continue;
      const { check } = await runStepsAsync(checkCheckpointSignatureOf(head, options.trustedKeys), crypto(options));
      if (!check.ok) return { ok: false, ...span, detail: `the ${which} checkpoint: ${check.detail}` };
    }
  }
  const hashes = Array.isArray(proof) ? proof : (proof as { proof?: unknown }).proof;
  if (!Array.isArray(proof)) {
    const answer = proof as { from?: unknown; to?: unknown };
    if (answer.from !== first.size || answer.to !== second.size) {
      return { ok: false, ...span, detail: `the proof is from ${String(answer.from)} to ${String(answer.to)}, not from ${first.size} to ${second.size}` };
    }
  }
  if (!Array.isArray(hashes)) return { ok: false, ...span, detail: 'the proof is not a list of base64 hashes' };
  const bytes: Uint8Array[] = [];
  for (const [i, text] of hashes.entries()) {
    const hash = typeof text === 'string' ? decodeBase64Strict(text) : null;
    if (!hash || hash.length !== HASH_SIZE) return { ok: false, ...span, detail: `proof hash ${i} is not base64 of 32 bytes` };
    bytes.push(hash);
  }
  const ok = await runStepsAsync(verifyConsistencyOf(first.size, second.size, first.root, second.root, bytes), crypto(options));
  return ok
    ? { ok, ...span, detail: `the tree of ${first.size} entries is a prefix of the tree of ${second.size}: the log only grew (${bytes.length} hashes)` }
    : { ok, ...span, detail: `the proof does not show the tree of ${first.size} entries to be a prefix of the tree of ${second.size}` };
}

/** Parses a log verifier key (C2SP form); throws on a malformed one. */
export const parseVerifierKey = (text: string, options: { crypto?: AsyncCrypto } = {}): Promise<VerifierKey> => runStepsAsync(parseVerifierKeyOf(text), crypto(options));

/** Parses a witness key (C2SP cosignature/v1 form); throws on a malformed one. */
export const parseWitnessKey = (text: string, options: { crypto?: AsyncCrypto } = {}): Promise<WitnessKey> => runStepsAsync(parseWitnessKeyOf(text), crypto(options));
