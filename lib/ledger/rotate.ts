import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HANDOVER_FORMAT, parseLedgerEntry, SUCCESSION_FORMAT, type HandoverEntry, type SuccessionEntry } from '#verify/checks/handover';
import { decodeEntryBundle, tilePath, TILE_WIDTH } from '#verify/node/tlog-tiles';
import { parseCheckpointText } from '#verify/checks/checkpoint';
import { encodeBase64 } from '#verify/checks/encoding';
import { parseNote } from '#verify/checks/note';
import { runLedgerBatch } from '../../functions/ledger-writer/batch';
import type { LedgerPublication } from '../../functions/ledger-writer/held-ledger';
import type { CheckpointSigner } from '../../functions/ledger-writer/signer';
import type { TileStore } from '../../functions/ledger-writer/tile-store';
import { tableStores } from '../../functions/store/dynamodb';
import { retireLog } from '../../functions/store/dynamodb/ledger-chain';
import { FIRST_LOG_KEYS, successorLogKeys, tilesDirOfKeys } from '../../functions/store/layout';

export interface RotateOptions {
  client: DynamoDBClient;
  table: string;
  /** The current log's key: it signs the old log's final checkpoint. */
  oldSigner: CheckpointSigner;
  /** The new log's key, named by its origin. */
  newSigner: CheckpointSigner;
  /** The tile log's root (the log prefix): the new log's tiles go below logs/<id>/ of it. */
  tiles?: TileStore;
  /** Take the old log's lease even if a writer that stopped part-way holds it. */
  unlock?: boolean;
  /** Test seams: what the old log's last entry and the new log's first say (forged handovers are made with them). */
  successionEntry?: (genuine: SuccessionEntry) => unknown;
  handoverEntry?: (genuine: HandoverEntry) => unknown;
}

export interface RotationResult {
  retired: { origin: string; treeSize: number; checkpoint: string; verifierKey: string };
  current: { origin: string; treeSize: number; checkpoint: string; verifierKey: string; tilesDir: string };
}

/** One entry in a batch of its own, through the writer every change goes through (functions/ledger-writer/batch.ts). */
async function appendEntry(options: RotateOptions, signer: CheckpointSigner, stores: ReturnType<typeof tableStores>, entry: (log: { size: number }) => unknown): Promise<LedgerPublication> {
  const outcome = await runLedgerBatch({ ledger: stores.ledger, records: stores.records, signer, tiles: options.tiles, unlock: options.unlock }, async (log) => {
    log.add(entry(log), { reference: '', version: 0 });
    await log.seal();
    return { records: [], settlements: [], result: undefined };
  });
  return outcome.ledger!;
}

/** The entry at `index` of a log of `size` entries, read back from its tile log below `dir`; null without a tile log. */
async function entryOf(tiles: TileStore | undefined, dir: string, index: number, size: number): Promise<Buffer | null> {
  if (!tiles || index < 0) return null;
  const bundle = Math.floor(index / TILE_WIDTH);
  const bytes = await tiles.read(`${dir}${tilePath({ level: 'entries', index: bundle, width: Math.min(TILE_WIDTH, size - bundle * TILE_WIDTH) })}`);
  return bytes ? (decodeEntryBundle(bytes)[index - bundle * TILE_WIDTH] ?? null) : null;
}

/** The successor's head when a run that stopped began it already, binding exactly `finalCheckpoint`; null when it has not begun. */
async function successorBegun(tiles: TileStore | undefined, stores: ReturnType<typeof tableStores>, keys: string, finalCheckpoint: string): Promise<{ treeSize: number; checkpoint: string } | null> {
  const head = await stores.ledger.lock.read();
  if (!head?.checkpoint) return null;
  const first = await entryOf(tiles, tilesDirOfKeys(keys), 0, head.treeSize);
  const handover = first ? parseLedgerEntry<HandoverEntry>(first, HANDOVER_FORMAT) : null;
  return typeof handover === 'object' && handover?.predecessor.checkpoint === finalCheckpoint ? { treeSize: head.treeSize, checkpoint: head.checkpoint } : null;
}

/**
 * Ends the table's current log and begins its successor (docs/ledger.md#when-the-key-must-change):
 *  1. the old log's last entry names the successor's origin and key, and its final checkpoint is signed by the old key;
 *  2. the new log (its own origin, key, table keys and tile directory) begins with an entry binding that final checkpoint;
 *  3. the old log's head names its successor (conditional on it still ending at the final checkpoint), so every writer's
 *     next lease, the read path and /v1/ledger lead to the new log; a writer still holding the old key is refused.
 * Run again after a stop between the steps, it takes up where it stopped (a succession or handover already written is
 * not written again); a log that grew after its succession entry, or was handed over already, is refused rather than forked.
 */
export async function rotateLedger(options: RotateOptions): Promise<RotationResult> {
  const { oldSigner, newSigner } = options;
  if (oldSigner.name === newSigner.name) throw new Error(`the new log needs an origin of its own (both keys are named ${oldSigner.name})`);
  const oldStores = tableStores(options.client, options.table);
  const head = await oldStores.ledger.lock.read();
  if (!head?.checkpoint) throw new Error('the table has no log to retire: load or sequence something first');
  if (head.origin !== oldSigner.name) throw new Error(`the table's current log is ${head.origin}, not ${oldSigner.name}: give its key as the old one`);
  const at = new Date().toISOString();
  const succession: SuccessionEntry = { format: SUCCESSION_FORMAT, origin: oldSigner.name, successor: { origin: newSigner.name, verifierKey: newSigner.verifierKey }, at };
  // Run again after a stop: a log whose last entry already hands over to this key is not ended twice.
  const last = await entryOf(options.tiles, head.tilesDir ?? '', head.treeSize - 1, head.treeSize);
  const named = last ? parseLedgerEntry<SuccessionEntry>(last, SUCCESSION_FORMAT) : null;
  const resumed = typeof named === 'object' && named?.successor.origin === newSigner.name && named.successor.verifierKey === newSigner.verifierKey;
  const final = resumed
    ? { treeSize: head.treeSize, checkpoint: head.checkpoint }
    : await appendEntry(options, oldSigner, oldStores, () => (options.successionEntry ? options.successionEntry(succession) : succession));
  const finalCheckpoint = parseCheckpointText(parseNote(final.checkpoint).text);

  const keys = successorLogKeys(newSigner.name);
  const newStores = tableStores(options.client, options.table, { keys });
  const begunBefore = await successorBegun(options.tiles, newStores, keys, final.checkpoint);
  const genuine: HandoverEntry = {
    format: HANDOVER_FORMAT,
    origin: newSigner.name,
    verifierKey: newSigner.verifierKey,
    predecessor: { origin: oldSigner.name, treeSize: final.treeSize, rootHash: encodeBase64(finalCheckpoint.rootHash), checkpoint: final.checkpoint },
    at,
  };
  const begun =
    begunBefore ??
    (await appendEntry(options, newSigner, newStores, (log) => {
      if (log.size !== 0) throw new Error(`the log ${newSigner.name} exists already (${log.size} entries) and does not continue this log's final checkpoint: a successor begins empty`);
      return options.handoverEntry ? options.handoverEntry(genuine) : genuine;
    }));
  await retireLog(options.client, options.table, head.keys ?? FIRST_LOG_KEYS, { treeSize: final.treeSize, checkpoint: final.checkpoint }, { keys, origin: newSigner.name });
  return {
    retired: { origin: oldSigner.name, treeSize: final.treeSize, checkpoint: final.checkpoint, verifierKey: oldSigner.verifierKey },
    current: { origin: newSigner.name, treeSize: begun.treeSize, checkpoint: begun.checkpoint, verifierKey: newSigner.verifierKey, tilesDir: tilesDirOfKeys(keys) },
  };
}
