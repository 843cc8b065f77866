import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HANDOVER_FORMAT, SUCCESSION_FORMAT, type HandoverEntry, type SuccessionEntry } from '#verify/checks/handover';
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

/**
 * Ends the table's current log and begins its successor (docs/ledger.md#when-the-key-must-change):
 *  1. the old log's last entry names the successor's origin and key, and its final checkpoint is signed by the old key;
 *  2. the new log (its own origin, key, table keys and tile directory) begins with an entry binding that final checkpoint;
 *  3. the old log's head names its successor (conditional on it still ending at the final checkpoint), so every writer's
 *     next lease, the read path and /v1/ledger lead to the new log; a writer still holding the old key is refused.
 * Run again after a stop between the steps, it refuses (the old log grew, or was handed over already) rather than fork.
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
  const final = await appendEntry(options, oldSigner, oldStores, () => (options.successionEntry ? options.successionEntry(succession) : succession));
  const finalCheckpoint = parseCheckpointText(parseNote(final.checkpoint).text);

  const keys = successorLogKeys(newSigner.name);
  const newStores = tableStores(options.client, options.table, { keys });
  const genuine: HandoverEntry = {
    format: HANDOVER_FORMAT,
    origin: newSigner.name,
    verifierKey: newSigner.verifierKey,
    predecessor: { origin: oldSigner.name, treeSize: final.treeSize, rootHash: encodeBase64(finalCheckpoint.rootHash), checkpoint: final.checkpoint },
    at,
  };
  const begun = await appendEntry(options, newSigner, newStores, (log) => {
    if (log.size !== 0) throw new Error(`the log ${newSigner.name} exists already (${log.size} entries): a successor begins empty`);
    return options.handoverEntry ? options.handoverEntry(genuine) : genuine;
  });
  await retireLog(options.client, options.table, head.keys ?? FIRST_LOG_KEYS, { treeSize: final.treeSize, checkpoint: final.checkpoint }, { keys, origin: newSigner.name });
  return {
    retired: { origin: oldSigner.name, treeSize: final.treeSize, checkpoint: final.checkpoint, verifierKey: oldSigner.verifierKey },
    current: { origin: newSigner.name, treeSize: begun.treeSize, checkpoint: begun.checkpoint, verifierKey: newSigner.verifierKey, tilesDir: tilesDirOfKeys(keys) },
  };
}
