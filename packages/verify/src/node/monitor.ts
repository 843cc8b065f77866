import { openSignedCheckpointOf } from '../checks/checkpoint';
import { checkCosignaturesOf, type WitnessPolicy } from '../checks/cosignature';
import { runStepsAsync, type AsyncCrypto } from '../checks/crypto-steps';
import { decodeBase64Strict, encodeBase64 } from '../checks/encoding';
import { HASH_SIZE } from '../checks/merkle';
import { keyIdHex, type VerifierKey } from '../checks/note';
import { webCrypto } from '../web-crypto';
import { leafHash } from './hashing';
import { MerkleTree } from './merkle-tree';
import {
  CHECKPOINT_PATH,
  decodeEntryBundle,
  entriesStart,
  hashTileBytes,
  tileHashes,
  tilePath,
  tilesAddedBetween,
  TILE_WIDTH,
  TileError,
  type TileCoordinate,
} from './tlog-tiles';

/**
 * A monitor of the ledger's C2SP tlog-tiles log: it trusts nothing the log serves. It verifies the
 * checkpoint's signature (and, when asked, k of n witness cosignatures), then rebuilds the tree
 * itself from the entries, checking every entry against its level-0 tile, every higher tile
 * against the hashes it computed, and the root against the checkpoint. The leaves it verified
 * earlier (kept by the caller) make the new tree an extension of the old one, so a matching root
 * proves the log only grew; a mismatch is located at the first entry that differs.
 */
export const MONITOR_STATE_FORMAT = 'svc.ledger-monitor-state.v1';

export interface MonitorState {
  format: typeof MONITOR_STATE_FORMAT;
  origin: string;
  treeSize: number;
  /** Root hash of the last verified checkpoint, base64. */
  rootHash: string;
  /** The last verified checkpoint note, as served. */
  checkpoint: string;
}

/** Reads a resource below the log's prefix: its bytes, or null when the log answers 404. */
export type LogFetch = (logPath: string) => Promise<Buffer | null>;

export type MonitorProblemKind =
  | 'missing' // a resource the checkpoint's size requires is not served
  | 'checkpoint' // unsigned, badly signed, malformed, or for another log
  | 'witnesses' // fewer than k of the n configured witnesses cosigned
  | 'shrunk' // the tree is smaller than one already verified
  | 'fork' // an entry differs from the one verified before: history was rewritten
  | 'tampered-entry' // an entry does not hash to its level-0 tile
  | 'tampered-tile' // a tile differs from the hashes of the entries below it
  | 'root'; // entries and tiles agree but do not produce the checkpoint's root

export interface MonitorProblem {
  kind: MonitorProblemKind;
  detail: string;
  /** The resource where it was found, relative to the prefix. */
  path?: string;
  /** The entry (leaf index) where it was found. */
  index?: number;
}

export interface MonitorReport {
  ok: boolean;
  origin: string | null;
  /** The size verified before this run (0 for a first run). */
  previousSize: number;
  treeSize: number | null;
  /** Entries verified in this run (beyond those of an interrupted run it resumed). */
  newEntries: number;
  /** What was verified, in order. */
  checks: string[];
  problem: MonitorProblem | null;
  /** The state to keep when ok. */
  state: MonitorState | null;
}

export interface MonitorOptions {
  fetch: LogFetch;
  /** The log's verifier keys (C2SP form parsed): one must have signed the checkpoint. */
  logKeys: readonly VerifierKey[];
  witnesses?: WitnessPolicy;
  /** The state of the last successful run, or null. */
  state: MonitorState | null;
  /**
   * Leaf hashes verified before: the first `state.treeSize` belong to that state; any beyond were
   * verified by an interrupted run against their tiles and are resumed from.
   */
  leaves: readonly Buffer[];
  /** Called with leaf hashes as they are verified, in order (to persist them and resume). */
  onLeaves?: (leaves: Buffer[]) => void | Promise<void>;
  onProgress?: (done: number, total: number) => void;
  /** Bundles fetched at once. */
  parallel?: number;
  /** What checks the checkpoint's signatures (default: the platform's WebCrypto); every entry and tile is hashed with node:crypto. */
  crypto?: AsyncCrypto;
}

class Found extends Error {
  constructor(readonly problem: MonitorProblem) {
    super(problem.detail);
  }
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').slice(0, 16);

export async function runMonitor(options: MonitorOptions): Promise<MonitorReport> {
  const checks: string[] = [];
  const previousSize = options.state?.treeSize ?? 0;
  const report = (problem: MonitorProblem | null, extra: Partial<MonitorReport> = {}): MonitorReport => ({
    ok: problem === null,
    origin: null,
    previousSize,
    treeSize: null,
    newEntries: 0,
    checks,
    problem,
    state: null,
    ...extra,
  });
  const fetchRequired = async (logPath: string): Promise<Buffer> => {
    const bytes = await options.fetch(logPath);
    if (!bytes) throw new Found({ kind: 'missing', path: logPath, detail: `${logPath} is not served, though the checkpoint's size requires it` });
    return bytes;
  };

  // 1. The checkpoint: signed by the log, for this log, cosigned as required.
  const noteBytes = await options.fetch(CHECKPOINT_PATH);
  if (!noteBytes) return report({ kind: 'missing', path: CHECKPOINT_PATH, detail: 'the log serves no checkpoint' });
  const note = noteBytes.toString('utf8');
  const crypto = options.crypto ?? webCrypto();
  const opened = await runStepsAsync(openSignedCheckpointOf(note, options.logKeys), crypto);
  if (!opened.ok) return report({ kind: 'checkpoint', path: CHECKPOINT_PATH, detail: opened.reason });
  const { checkpoint, signer } = opened;
  if (options.state && options.state.origin !== checkpoint.origin) {
    return report({ kind: 'checkpoint', path: CHECKPOINT_PATH, detail: `this state follows ${options.state.origin}, the checkpoint is for ${checkpoint.origin}` });
  }
  const N = checkpoint.treeSize;
  const base = { origin: checkpoint.origin, treeSize: N };
  checks.push(`checkpoint: ${checkpoint.origin}, size ${N}, signed by ${signer.name}+${keyIdHex(signer.keyId)}`);
  if (options.witnesses) {
    const cosigned = await runStepsAsync(checkCosignaturesOf(note, options.witnesses), crypto);
    if (!cosigned.ok) return report({ kind: 'witnesses', path: CHECKPOINT_PATH, detail: cosigned.detail }, base);
    checks.push(`witnesses: ${cosigned.detail}`);
  }

  // 2. The tree as verified before.
  const M = previousSize;
  if (N < M) return report({ kind: 'shrunk', path: CHECKPOINT_PATH, detail: `the log shrank: it had ${M} entries when last verified, its checkpoint now says ${N}` }, base);
  if (options.leaves.length < M) throw new Error(`the monitor state says ${M} entries but only ${options.leaves.length} verified leaf hashes are kept`);
  const tree = new MerkleTree();
  for (let i = 0; i < M; i++) tree.append(options.leaves[i]);
  if (M > 0 && !tree.root().equals(decodeBase64Strict(options.state!.rootHash) ?? Buffer.alloc(0))) {
    throw new Error('the kept leaf hashes do not reproduce the root of the kept checkpoint: the monitor state is damaged');
  }
  // Leaves an interrupted run verified beyond M (resumed when the log still reaches them).
  if (options.leaves.length <= N) for (let i = M; i < options.leaves.length; i++) tree.append(options.leaves[i]);
  const resumed = tree.size - M;
  if (resumed > 0) checks.push(`resumed after ${tree.size} entries verified by an interrupted run`);

  // Where the entries verified before end: a rewrite is looked for below it.
  const from = tree.size;
  const fork = () => locateFork(options.fetch, tree, from, N, checkpoint.rootHash);
  try {
    // 3. Entries, bundle by bundle: each entry hashes to its level-0 tile; entries seen before are unchanged; new ones extend the tree.
    const firstBundle = entriesStart(from) / TILE_WIDTH;
    const lastBundle = Math.ceil(N / TILE_WIDTH);
    const parallel = options.parallel ?? 8;
    let verified = 0;
    for (let group = firstBundle; group < lastBundle; group += parallel) {
      const indexes = Array.from({ length: Math.min(parallel, lastBundle - group) }, (_, k) => group + k);
      const fetched = await Promise.all(
        indexes.map(async (index) => {
          const width = Math.min(TILE_WIDTH, N - index * TILE_WIDTH);
          const bundlePath = tilePath({ level: 'entries', index, width });
          const level0Path = tilePath({ level: 0, index, width });
          const [bundle, level0] = await Promise.all([fetchRequired(bundlePath), fetchRequired(level0Path)]);
          return { index, width, bundlePath, level0Path, bundle, level0 };
        }),
      );
      const added: Buffer[] = [];
      for (const bundle of fetched) added.push(...(await verifyBundle(bundle, tree, fork)));
      if (added.length > 0) await options.onLeaves?.(added);
      verified += added.length;
      options.onProgress?.(tree.size - from, N - from);
    }
    checks.push(`entries: ${verified} new entries hash to their level-0 tiles${from > 0 ? `; the ${from - entriesStart(from)} entries before them in the first bundle are unchanged` : ''}`);

    // 4. Every higher tile the growth made (from the size last verified) holds the hashes computed from the entries.
    const higher = await verifyHigherTiles(fetchRequired, tree, M, N);
    checks.push(`tiles: ${higher} tiles above level 0 match the hashes computed from the entries`);

    // 5. The root: the tree extends the one verified before, so a matching root is consistency too.
    if (!tree.root().equals(checkpoint.rootHash)) await fork();
    checks.push(M > 0 ? `consistent: the tree of ${N} entries extends the ${M} verified before and has the checkpoint's root` : `root: the ${N} entries produce the checkpoint's root`);
  } catch (error) {
    if (error instanceof Found) return report(error.problem, base);
    throw error;
  }
  return report(null, {
    ...base,
    newEntries: N - M - resumed,
    state: { format: MONITOR_STATE_FORMAT, origin: checkpoint.origin, treeSize: N, rootHash: encodeBase64(checkpoint.rootHash), checkpoint: note },
  });
}

/** One bundle of entries as fetched, with its level-0 tile. */
interface FetchedBundle {
  index: number;
  width: number;
  bundlePath: string;
  level0Path: string;
  bundle: Buffer;
  level0: Buffer;
}

/**
 * Each entry of a bundle hashes to its level-0 tile; an entry seen before is unchanged (else
 * `fork` locates the rewrite); the new ones extend the tree. Gives the leaves it added.
 */
async function verifyBundle({ index, width, bundlePath, level0Path, bundle, level0 }: FetchedBundle, tree: MerkleTree, fork: () => Promise<never>): Promise<Buffer[]> {
  const added: Buffer[] = [];
  let entries: Buffer[];
  let hashes: Buffer[];
  try {
    entries = decodeEntryBundle(bundle);
  } catch (error) {
    throw new Found({ kind: 'tampered-entry', path: bundlePath, index: index * TILE_WIDTH, detail: `${bundlePath} is not an entry bundle: ${(error as TileError).message}` });
  }
  if (entries.length !== width) throw new Found({ kind: 'tampered-entry', path: bundlePath, index: index * TILE_WIDTH + Math.min(entries.length, width), detail: `${bundlePath} holds ${entries.length} entries, not ${width}` });
  try {
    hashes = tileHashes(level0);
  } catch (error) {
    throw new Found({ kind: 'tampered-tile', path: level0Path, index: index * TILE_WIDTH, detail: `${level0Path}: ${(error as TileError).message}` });
  }
  if (hashes.length !== width) throw new Found({ kind: 'tampered-tile', path: level0Path, index: index * TILE_WIDTH, detail: `${level0Path} holds ${hashes.length} hashes, not ${width}` });
  for (let i = 0; i < width; i++) {
    const at = index * TILE_WIDTH + i;
    const hash = leafHash(entries[i]);
    if (!hash.equals(hashes[i])) {
      throw new Found({
        kind: 'tampered-entry',
        path: bundlePath,
        index: at,
        detail: `entry ${at} (number ${i} of ${bundlePath}) hashes to ${hex(hash)}…, but hash ${i} of ${level0Path} is ${hex(hashes[i])}…`,
      });
    }
    if (at < tree.size) {
      // History was rewritten; report where it starts, which may be in a bundle not read again.
      if (!hash.equals(tree.leaf(at))) await fork();
    } else {
      tree.append(hash);
      added.push(hash);
    }
  }
  return added;
}

/** Every tile above level 0 the growth from M to N entries made holds the hashes computed from the entries; gives how many there were. */
async function verifyHigherTiles(fetchRequired: (path: string) => Promise<Buffer>, tree: MerkleTree, M: number, N: number): Promise<number> {
  const higher = tilesAddedBetween(M, N).filter((t): t is TileCoordinate & { level: number } => t.level !== 'entries' && t.level > 0);
  for (const tile of higher) {
    const path = tilePath(tile);
    const served = await fetchRequired(path);
    const expected = hashTileBytes(tree, tile);
    if (!served.equals(expected)) {
      let position = 0;
      while (position * HASH_SIZE < expected.length && served.subarray(position * HASH_SIZE, (position + 1) * HASH_SIZE).equals(expected.subarray(position * HASH_SIZE, (position + 1) * HASH_SIZE))) position++;
      throw new Found({
        kind: 'tampered-tile',
        path,
        index: (tile.index * TILE_WIDTH + position) * TILE_WIDTH ** tile.level,
        detail: `${path}: hash ${position} differs from the hash of its ${TILE_WIDTH ** tile.level} entries${served.length !== expected.length ? ` (and it has ${served.length} bytes, not ${expected.length})` : ''}`,
      });
    }
  }
  return higher.length;
}

/**
 * The root differs. Compare the level-0 tiles the log serves now over the entries verified before
 * with the leaves kept: the first difference is where history was rewritten. Without one, the
 * tiles and entries agree with each other and the checkpoint signs another root.
 */
async function locateFork(fetch: LogFetch, tree: MerkleTree, known: number, N: number, root: Uint8Array): Promise<never> {
  for (let index = 0; index * TILE_WIDTH < known; index++) {
    const width = Math.min(TILE_WIDTH, N - index * TILE_WIDTH);
    const path = tilePath({ level: 0, index, width });
    const served = await fetch(path);
    if (!served) throw new Found({ kind: 'missing', path, detail: `${path} is not served, though the checkpoint's size requires it` });
    const hashes = served.length % HASH_SIZE === 0 ? tileHashes(served) : [];
    for (let i = 0; i < width && index * TILE_WIDTH + i < known; i++) {
      const at = index * TILE_WIDTH + i;
      if (!hashes[i] || !hashes[i].equals(tree.leaf(at))) {
        throw new Found({ kind: 'fork', path, index: at, detail: `the log's entry ${at} is not the one verified before (${known} entries were): history was rewritten from entry ${at} on` });
      }
    }
  }
  throw new Found({ kind: 'root', path: CHECKPOINT_PATH, detail: `the entries and tiles of ${N} entries agree but produce the root ${hex(tree.root())}…, not the checkpoint's ${hex(root)}…` });
}
