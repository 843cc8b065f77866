import { storeClient, tableName } from './client';
import { dynamoPublishedLedger } from './dynamodb/ledger-head';
import { dynamoReceivedEvents } from './dynamodb/received-events';
import { dynamoRecordWindows } from './dynamodb/record-windows';
import { StoreNotConfigured } from './errors';
import type { PublishedLedger } from './ports/ledger';
import type { ReceivedEvents } from './ports/pending';
import type { RecordWindows } from './ports/records';

/**
 * The ports as a function reaches them in its execution environment (the parts it uses: a read
 * function bundles only its read): the table named by
 * TABLE_NAME, through the one store client of the environment (client.ts: short timeouts, the
 * SDK's own endpoint settings, AWS_ENDPOINT_URL_DYNAMODB outside AWS). Every handler takes its
 * ports from here and hands them on; the sequencer's Lambda makes its own, more patient client,
 * and the loader, the local host and the tests make theirs for the tables they name. Without a
 * table, StoreNotConfigured: persistence is gated.
 */
function fromEnvironment<T>(make: (table: string) => T): () => T {
  let made: { table: string; port: T } | undefined;
  return () => {
    const table = tableName();
    if (!table) throw new StoreNotConfigured();
    if (made?.table !== table) made = { table, port: make(table) };
    return made.port;
  };
}

// Marked pure: a function bundles only the ports it reaches for (test/unit/bundle-budgets.test.ts).
/** The read path's and the receivers' view of the records. */
export const environmentRecords: () => RecordWindows = /* @__PURE__ */ fromEnvironment((table) => dynamoRecordWindows(storeClient(), table));
/** The receivers' part of the pending store. */
export const environmentReceivedEvents: () => ReceivedEvents = /* @__PURE__ */ fromEnvironment((table) => dynamoReceivedEvents(storeClient(), table));
/** The read path's view of the log. */
export const environmentPublishedLedger: () => PublishedLedger = /* @__PURE__ */ fromEnvironment((table) => dynamoPublishedLedger(storeClient(), table));
