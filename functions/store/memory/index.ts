import type { LedgerStores } from '../ports/ledger';
import { memoryLedger, type MemoryLedger } from './ledger';
import { MemoryPendingStore } from './pending';
import { MemoryRecordStore } from './records';

export interface MemoryStores {
  records: MemoryRecordStore;
  pending: MemoryPendingStore;
  ledger: LedgerStores & MemoryLedger;
}

/** Every store in this process's memory, over one shared state (as ports over one table): tests of the domain and the sequencer run on these. */
export function memoryStores(): MemoryStores {
  const records = new MemoryRecordStore();
  const pending = new MemoryPendingStore();
  return { records, pending, ledger: memoryLedger({ records, pending }) };
}
