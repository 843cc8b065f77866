import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LedgerStores, PublishedLedger } from '../ports/ledger';
import type { PendingStore } from '../ports/pending';
import type { RecordStore } from '../ports/records';
import { dynamoJournal } from './journal';
import { dynamoLedgerLock, dynamoPublishedLedger } from './ledger-head';
import { chainLocator, fixedLocator } from './ledger-chain';
import { dynamoLeafStore } from './ledger-leaves';
import { dynamoPendingStore } from './pending';
import { dynamoRecordStore } from './records';
import type { RecordTails } from './record-tails';

export interface TableStores {
  records: RecordStore;
  pending: PendingStore;
  ledger: LedgerStores & { published: PublishedLedger };
}

/**
 * Every store in one DynamoDB table (layout.ts), through one client: what the writers (the
 * sequencer, the loader) are given. `log` names the log to write (a key change writing the new
 * one); `tails` is what a warm writer remembers of its records between batches (the sequencer's).
 */
export function tableStores(client: DynamoDBClient, table: string, log?: { keys: string }, tails?: RecordTails): TableStores {
  // The ledger's three writer ports address one log together: the current one of the table's chain, or the one named (a key change writing the new log).
  const locator = log ? fixedLocator(log.keys) : chainLocator(client, table);
  return {
    records: dynamoRecordStore(client, table, tails),
    pending: dynamoPendingStore(client, table),
    ledger: {
      lock: dynamoLedgerLock(client, table, locator),
      leaves: dynamoLeafStore(client, table, locator),
      journal: dynamoJournal(client, table, locator),
      published: dynamoPublishedLedger(client, table),
    },
  };
}
