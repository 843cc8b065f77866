import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { previousBundleEntries } from '../../functions/ledger-writer/table-ledger';
import { directoryTileStore, writeLogResources, type TileStore } from '../../functions/ledger-writer/tile-store';
import type { CheckpointSigner } from '../../functions/ledger-writer/signer';
import { ledgerCheckpointItem, ledgerHeadItem, ledgerLeafItems, ledgerTileItems, type HashTileToStore } from '../../functions/store/ledger';
import { loadedGenesisItem, PENDING_INDEX, recordEntryItems, tableMetaItem, TABLE_KEYS } from '../../functions/store/write';
import { partialHashTiles } from '../../functions/domain/ledger/tiles';
import { TILE_WIDTH } from '#verify/node/tlog-tiles';
import { HASH_SIZE } from '#verify/checks/merkle';
import { devLedgerSigner } from '../ledger/dev-key';
import { attachSealedLedgerEvidence, type LedgerAttachment } from './evidence';
import { recordChunks } from './chunks';
import { checkOrThrow } from './check';
import type { LoadOptions } from './load';
import { ImportFileWriter, IMPORT_FILE_BYTES, type ImportFile } from './import-files';
import { LoadScratch } from './scratch';
import type { RecordSource } from './source';

export interface ExportOptions extends Pick<LoadOptions, 'onProgress' | 'onCheckProgress' | 'onProblem' | 'chunkRecords' | 'signer'> {
  /** The export folder: `data/` (the import files), `ledger/` (the tile log, unless `tiles`), `manifest.json`. */
  dir: string;
  /** Where the tile log goes instead of DIR/ledger (the catalogue bucket on AWS). */
  tiles?: TileStore;
  /** Uncompressed bytes per import file (default 256 MiB). */
  fileBytes?: number;
}

export interface ExportSummary {
  records: number;
  items: number;
  /** The import files, relative to DIR/data. */
  files: ImportFile[];
  dataDir: string;
  tiles: string;
  ledger: { origin: string; treeSize: number; checkpoint: string; verifierKey: string } & LedgerAttachment;
}

/** The export's description of itself, beside (never inside) the folder the import reads. */
const EXPORT_MANIFEST_FORMAT = 'svc.table-export.v1';

/**
 * The records of `source` as a new table's complete content, in DynamoDB's import format
 * (import-files.ts) instead of writes to a table: for DynamoDB's own bulk import (ImportTable,
 * or the stack's `importFrom`), which writes tens of millions of items without consuming the
 * table's write capacity. The same two passes and the same batches as a load into an empty table
 * (so the same leaves, checkpoints and evidence), with the log held as its right edge between
 * batches (the partial hash tile of each level) instead of in a table: memory holds one batch.
 * Every key appears once (an import keeps one item per key, in no set order): a partial hash tile
 * is written once, in its final state, at the end; the head and the table's metadata too.
 */
export async function exportRecords(source: RecordSource, options: ExportOptions): Promise<ExportSummary> {
  const dataDir = path.join(options.dir, 'data');
  if ((await readdir(dataDir).catch(() => [])).length > 0) throw new Error(`${dataDir} is not empty: export into a new folder (an import reads every file under its prefix)`);
  const tiles = options.tiles ?? directoryTileStore(path.join(options.dir, 'ledger'));
  if (await tiles.read('checkpoint')) throw new Error(`the tile log at ${tiles.location} already holds a log: an export starts a new one (a new table), so give it an empty place`);
  const scratch = await LoadScratch.open();
  try {
    const checked = await checkOrThrow(source, scratch, options);
    const total = checked.records + checked.derived;
    const signer: CheckpointSigner = options.signer ?? (await devLedgerSigner()).signer;
    const writer = new ImportFileWriter(dataDir, options.fileBytes ?? IMPORT_FILE_BYTES);
    // The log between batches: its size, signed checkpoint, and the rightmost hash tile of each level.
    let size = 0;
    let checkpoint: string | null = null;
    const edge = new Map<number, HashTileToStore>();
    const edgeHashes = (level: number): Uint8Array | null => {
      const wanted = partialHashTiles(size).find((t) => t.level === level);
      const tile = edge.get(level);
      return wanted && tile && tile.index === wanted.index ? tile.hashes : null;
    };
    const attachment: LedgerAttachment = { logged: 0, appended: 0, alteredAfterLogging: [] };
    let done = 0;
    let items = 0;
    options.onProgress?.(0, total);
    const write = async (batch: Parameters<ImportFileWriter['write']>[0]) => {
      await writer.write(batch);
      items += batch.length;
    };
    for await (const chunk of recordChunks(source, scratch, { records: options.chunkRecords, expectedRecords: checked.records })) {
      const log: AppendOnlyLog = size === 0 ? new AppendOnlyLog(signer) : AppendOnlyLog.fromRightEdge(signer, size, edgeHashes, checkpoint);
      const previous = await previousBundleEntries(log, tiles);
      const records = chunk.map((c) => c.record);
      const logged = await attachSealedLedgerEvidence(records, log);
      attachment.logged += logged.logged;
      attachment.appended += logged.appended;
      attachment.alteredAfterLogging.push(...logged.alteredAfterLogging);
      if (log.hasUnpublished) {
        const note: string = await log.seal();
        await write(ledgerLeafItems(log.newLeaves));
        for (const tile of log.grownHashTiles) {
          if (tile.hashes.length === TILE_WIDTH * HASH_SIZE) await write(ledgerTileItems([tile]));
          edge.set(tile.level, tile);
        }
        await write([ledgerCheckpointItem({ treeSize: log.size, checkpoint: note, at: new Date().toISOString() })]);
        await writeLogResources(tiles, log.tileResources(previous));
        log.markPublished(note);
        size = log.size;
        checkpoint = note;
      }
      await write(records.flatMap(recordEntryItems));
      await write(chunk.map((c) => loadedGenesisItem(c.record, c.digest)));
      done += chunk.length;
      options.onProgress?.(done, total);
    }
    if (!checkpoint) throw new Error('nothing to export: the file logs no record version');
    await write([...edge.values()].filter((tile) => tile.hashes.length < TILE_WIDTH * HASH_SIZE).map((tile) => ledgerTileItems([tile])[0]));
    await write([ledgerHeadItem({ origin: signer.name, treeSize: size, checkpoint, at: new Date().toISOString() }), tableMetaItem()]);
    const files = await writer.close();
    const summary: ExportSummary = {
      records: total,
      items,
      files,
      dataDir,
      tiles: tiles.location,
      ledger: { origin: signer.name, treeSize: size, checkpoint, verifierKey: signer.verifierKey, ...attachment },
    };
    await mkdir(options.dir, { recursive: true });
    await writeFile(
      path.join(options.dir, 'manifest.json'),
      `${JSON.stringify(
        {
          format: EXPORT_MANIFEST_FORMAT,
          import: { inputFormat: 'DYNAMODB_JSON', inputCompressionType: 'GZIP', keySchema: TABLE_KEYS, globalSecondaryIndex: PENDING_INDEX, folder: 'data/' },
          records: summary.records,
          items,
          files,
          ledger: { origin: signer.name, treeSize: size, verifierKey: signer.verifierKey, checkpoint, tiles: tiles.location },
        },
        null,
        2,
      )}\n`,
    );
    return summary;
  } finally {
    await scratch.close();
  }
}
