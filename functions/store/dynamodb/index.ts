import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LedgerStores, PublishedLedger } from '../ports/ledger';
import type { PendingStore } from '../ports/pending';
import type { RecordStore } from '../ports/records';
import { dynamoJournal } from './journal';
import { dynamoLedgerLock, dynamoPublishedLedger } from './ledger-head';
import { dynamoLeafStore } from './ledger-leaves';
import { dynamoPendingStore } from './pending';
import { dynamoRecordStore } from './records';

export interface TableStores {
  records: RecordStore;
  pending: PendingStore;
  ledger: LedgerStores & { published: PublishedLedger };
}

/** Every store in one DynamoDB table (layout.ts), through one client: what the writers (the sequencer, the loader) are given. */
export function tableStores(client: DynamoDBClient, table: string): TableStores {
  return {
    records: dynamoRecordStore(client, table),
    pending: dynamoPendingStore(client, table),
    ledger: { lock: dynamoLedgerLock(client, table), leaves: dynamoLeafStore(client, table), journal: dynamoJournal(client, table), published: dynamoPublishedLedger(client, table) },
  };
}
