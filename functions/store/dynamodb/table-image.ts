import type { HashTileToStore, LeafToStore, PublishedHead } from '../ports/ledger';
import type { RecordToStore } from '../ports/records';
import { PENDING_INDEX } from '../layout';
import { tableMetaItem, TABLE_KEYS } from '../write';
import { ImportFileWriter, type ImportFile } from './import-files';
import { ledgerCheckpointItem, ledgerHeadItem } from './ledger-head';
import { ledgerTileItems } from './ledger-leaves';
import { recordChangeItems } from './records';

/**
 * A new table's whole content as DynamoDB's import from S3 reads it (import-files.ts), written by a
 * load that exports instead of writing to a table (lib/loader/export.ts): the same items the
 * stores would write, each key once (an import keeps one item per key, in no set order), so the
 * log's partial hash tiles and its head come last, in their final state.
 */
export class TableImage {
  private readonly writer: ImportFileWriter;
  items = 0;

  constructor(dataDir: string, fileBytes: number) {
    this.writer = new ImportFileWriter(dataDir, fileBytes);
  }

  private async write(items: Parameters<ImportFileWriter['write']>[0]): Promise<void> {
    await this.writer.write(items);
    this.items += items.length;
  }

  /** A batch's full hash tiles and its checkpoint (its new leaves are the hashes of its level-0 tiles: no item of their own). */
  async addLog(_leaves: readonly LeafToStore[], fullTiles: readonly HashTileToStore[], checkpoint: { treeSize: number; checkpoint: string; at: string }): Promise<void> {
    await this.write(ledgerTileItems(fullTiles));
    await this.write([ledgerCheckpointItem(checkpoint)]);
  }

  /** Records written whole, each with its genesis carrying the digest of what a load writes (as a load into a table). */
  async addRecords(records: readonly { record: RecordToStore; digest: string }[]): Promise<void> {
    const changes = records.map(({ record, digest }) => ({
      reference: record.reference,
      kind: record.kind,
      entries: record.entries.map((e) => ({ id: null, ...e })),
      genesis: { highestVersion: record.entries.reduce((highest, e) => Math.max(highest, (e.head as { version?: number }).version ?? 0), 0), loadDigest: digest },
    }));
    const { entries, geneses } = recordChangeItems(changes);
    await this.write(entries);
    await this.write(geneses);
  }

  /** The partial tiles in their final state, the head and the schema mark; the files written. */
  async finish(partialTiles: readonly HashTileToStore[], head: PublishedHead): Promise<ImportFile[]> {
    await this.write(ledgerTileItems(partialTiles));
    await this.write([ledgerHeadItem(head), tableMetaItem()]);
    return this.writer.close();
  }
}

/** What DynamoDB's import needs to know of the files (the manifest): their format and the table's keys and index. */
export const TABLE_IMPORT = { inputFormat: 'DYNAMODB_JSON', inputCompressionType: 'GZIP', keySchema: TABLE_KEYS, globalSecondaryIndex: PENDING_INDEX, folder: 'data/' } as const;
