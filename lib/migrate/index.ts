import { dynamoLedgerLock } from '../../functions/store/dynamodb/ledger-head';
import { headsApart } from './steps/heads-apart';
import { inlineMarks } from './steps/inline-marks';
import { integratedClaims } from './steps/integrated-claims';
import { leanRecords } from './steps/lean-records';
import { ledgerKeys } from './steps/ledger-keys';
import { pendingShards } from './steps/pending-shards';
import type { MigrationContext, MigrationStep } from './step';

/** Records' entries lean, each version's head and evidence stored once (docs/semantics.md#storage): the items it wrote. */
const leanRecordsStep: MigrationStep = async ({ client, table, log }) => {
  const summary = await leanRecords(client, table);
  for (const { reference, reason } of summary.kept) log(`lean-records: ${reference} kept as it was (still read as it is): ${reason}`);
  return summary.entries + summary.heads;
};

/** The steps, in order (docs/deploy.md#migrating-a-table). A new layout change adds its step here. */
export const MIGRATION_STEPS: ReadonlyArray<{ name: string; run: MigrationStep }> = [
  { name: 'pending-shards', run: pendingShards },
  { name: 'ledger-keys', run: ledgerKeys },
  { name: 'lean-records', run: leanRecordsStep },
  { name: 'inline-marks', run: inlineMarks },
  { name: 'integrated-claims', run: integratedClaims },
  { name: 'heads-apart', run: headsApart },
];

/** How long the migration holds the ledger's lease: no writer changes the log while its items move. */
const MIGRATION_LEASE_MS = 30 * 60_000;

/**
 * Runs every step on the table, under the ledger's single-writer lease (a sequencer or a load
 * waits until it is done). Returns what each step moved.
 */
export async function migrateTable(context: MigrationContext, steps = MIGRATION_STEPS): Promise<Record<string, number>> {
  const lock = dynamoLedgerLock(context.client, context.table);
  const lockId = `migrate:${process.pid}:${Date.now()}`;
  await lock.acquire(lockId, { at: new Date().toISOString(), leaseMs: MIGRATION_LEASE_MS });
  const moved: Record<string, number> = {};
  try {
    for (const step of steps) {
      moved[step.name] = await step.run(context);
      context.log(`${step.name}: ${moved[step.name]} items moved`);
    }
  } finally {
    await lock.release(lockId);
  }
  return moved;
}
