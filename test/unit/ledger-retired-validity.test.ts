import { assessIntegrity, inspectIntegrity, retiredLedgerLogs } from '../../functions/domain/evidence';
import type { RecordHead } from '../../functions/domain/record';
import { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';

/**
 * The read path's integrity check refuses a retired log's evidence beyond the log's final tree size:
 * the retired key still signs (a stolen key can), but its signatures count up to the final checkpoint only.
 */
const ORIGIN = 'verify.example.org/ledger';
const oldSigner = signerFromKey(generateSignerKey(ORIGIN));
const newSigner = signerFromKey(generateSignerKey(`${ORIGIN}/2`));
const KEYS = [newSigner.verifierKey, oldSigner.verifierKey];
const record = (i: number) => ({ reference: `REF-${i}`, title: `Record ${i}`, version: 1 });

/** A log of `size` records signed by the old key, and the evidence of record 0 under its checkpoint. */
function headOfLogOf(size: number): RecordHead {
  const log = new AppendOnlyLog(oldSigner);
  for (let i = 0; i < size; i++) log.add(record(i), { reference: `REF-${i}`, version: 1 });
  return { kind: 'OBJECT', reference: 'REF-0', version: 1, content: record(0), evidence: log.evidence(0, 1) };
}

const previous = process.env.LEDGER_RETIRED_LOGS;
afterEach(() => {
  if (previous === undefined) delete process.env.LEDGER_RETIRED_LOGS;
  else process.env.LEDGER_RETIRED_LOGS = previous;
});

test('LEDGER_RETIRED_LOGS names each retired log with its final tree size; a malformed entry throws', () => {
  expect(retiredLedgerLogs({ LEDGER_RETIRED_LOGS: ` ${ORIGIN}=12 , a.example/log=3 ` })).toEqual([
    { origin: ORIGIN, validUpToTreeSize: 12 },
    { origin: 'a.example/log', validUpToTreeSize: 3 },
  ]);
  expect(retiredLedgerLogs({})).toEqual([]);
  for (const bad of [ORIGIN, `${ORIGIN}=`, `${ORIGIN}=0`, `${ORIGIN}=1.5`, '=4']) {
    expect(() => retiredLedgerLogs({ LEDGER_RETIRED_LOGS: bad })).toThrow(/is not <origin>=<final tree size>/);
  }
});

test('evidence of a retired log within its final size is confirmed; beyond it, not, naming retired-key-validity', () => {
  const within = headOfLogOf(5);
  const beyond = headOfLogOf(6);
  const retired = [{ origin: ORIGIN, validUpToTreeSize: 5 }];
  expect(inspectIntegrity(within, KEYS, retired).confirmed).toBe(true);
  const refused = inspectIntegrity(beyond, KEYS, retired);
  expect(refused.confirmed).toBe(false);
  expect(refused.reason).toBe(`Ledger check 'retired-key-validity' failed: ${ORIGIN} was retired at 5 entries, but this checkpoint says 6: signed after the log ended, so by a compromised key.`);
  // Every signature check itself passed: only the validity refuses it.
  expect(refused.checks.every((c) => c.ok)).toBe(true);
  // Without the limit the same evidence is confirmed, and a limit on another log does not apply.
  expect(inspectIntegrity(beyond, KEYS, []).confirmed).toBe(true);
  expect(inspectIntegrity(beyond, KEYS, [{ origin: 'other.example/ledger', validUpToTreeSize: 1 }]).confirmed).toBe(true);
});

test('the handlers\' entry point takes the limit from LEDGER_RETIRED_LOGS, and never reuses an outcome remembered under another limit', () => {
  const beyond = headOfLogOf(6);
  const text = JSON.stringify(beyond);
  delete process.env.LEDGER_RETIRED_LOGS;
  expect(assessIntegrity(beyond, text, KEYS).confirmed).toBe(true);
  process.env.LEDGER_RETIRED_LOGS = `${ORIGIN}=5`;
  expect(assessIntegrity(beyond, text, KEYS)).toEqual({ confirmed: false, reason: expect.stringContaining('retired-key-validity') });
  process.env.LEDGER_RETIRED_LOGS = `${ORIGIN}=6`;
  expect(assessIntegrity(beyond, text, KEYS).confirmed).toBe(true);
});
