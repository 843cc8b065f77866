import { readFile, rename, rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseVerifierKey, parseWitnessKey } from '../verify';
import { checkHandover } from '../node/handover';
import { readMonitorState, runMonitorWithState, stateFiles } from '../node/monitor-state';
import { generateWitnessKey, witnessFromKey } from '../node/witness';

/**
 * `monitor <base URL> [--state FILE] [--key VERIFIER_KEY]... [--prefix URL] [--witness WITNESS_KEY]...
 *          [--witnesses-required K] [--cosign-with WITNESS_KEY_FILE]`
 * `monitor --new-witness-key NAME`
 *
 * Monitors the service's ledger as a C2SP tlog-tiles log (../node/monitor.ts): fetches the
 * checkpoint, verifies its signature (and k of n witness cosignatures), checks that the log only
 * grew since the checkpoint kept in the state file, downloads the new tiles and entry bundles,
 * recomputes every hash and the root from the entries, and reports new entries, or where it found a
 * fork, a tampered entry or tile, or a log that shrank. Progress on stderr; an interrupted run
 * resumes. Exit status 0 verified, 1 a problem found, 2 could not run. With --cosign-with, a
 * witness key file: prints the cosignature line for the verified checkpoint last.
 */
export const MONITOR_USAGE =
  '<base URL> [--state FILE] [--key VERIFIER_KEY]... [--prefix URL]\n' +
  '                [--witness WITNESS_KEY]... [--witnesses-required K] [--cosign-with WITNESS_KEY_FILE]\n' +
  '       --new-witness-key NAME';

async function get(url: string): Promise<Buffer | null> {
  const res = await fetch(url, { headers: { 'accept-encoding': 'gzip, identity' } });
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

interface ServiceLedger {
  tiles?: { monitoringPrefix?: string };
  verifierKeys?: { verifierKey: string }[];
  logs?: Array<{ origin: string; role: string; validUpToTreeSize: number | null; monitoringPrefix: string }>;
}

/**
 * When the state follows a log the service lists as retired: the old log is monitored to its final
 * checkpoint, the handover checked (both keys' consent), and the successor monitored from its first
 * entry with the key the old log named; the state then follows the successor. Null when the state
 * follows the current log (or none). Exit status as run's.
 */
async function followHandover(stateFile: string, logs: NonNullable<ServiceLedger['logs']>, keys: string[]): Promise<number | null> {
  const files = stateFiles(stateFile);
  const { state } = await readMonitorState(files);
  const current = logs.at(-1);
  const old = state ? logs.find((l) => l.origin === state.origin && l.role === 'retired') : undefined;
  if (!state || !current || !old || current.origin === state.origin) return null;
  const fail = (reason: string) => {
    console.log(`FAIL  handover from ${old.origin} to ${current.origin}: ${reason}`);
    return 1;
  };
  const oldKeys = await Promise.all(keys.map((key) => parseVerifierKey(key)));
  console.error(`log: ${old.monitoringPrefix} (retired; then its successor ${current.monitoringPrefix})`);
  const oldReport = await runMonitorWithState(files, { fetch: (p) => get(`${old.monitoringPrefix}${p}`), logKeys: oldKeys });
  for (const check of oldReport.checks) console.log(`ok    ${check}`);
  if (!oldReport.ok) return fail(`the old log: ${oldReport.problem!.kind}: ${oldReport.problem!.detail}`);
  if (oldReport.treeSize !== old.validUpToTreeSize) return fail(`the old log serves size ${oldReport.treeSize}, but its final checkpoint is of ${old.validUpToTreeSize}`);
  const verifiedOld = await readMonitorState(files);
  const newNote = (await get(`${current.monitoringPrefix}checkpoint`))?.toString('utf8') ?? '';
  const newSize = Number(newNote.split('\n')[1]);
  const check = await checkHandover({
    oldFetch: (p) => get(`${old.monitoringPrefix}${p}`),
    newFetch: (p) => get(`${current.monitoringPrefix}${p}`),
    oldState: verifiedOld.state!,
    oldLeaves: verifiedOld.leaves,
    oldKeys,
    newOrigin: current.origin,
    newSize,
  });
  if (!check.ok) return fail(check.reason);
  console.log(`ok    handover: ${old.origin} ended at ${oldReport.treeSize} naming ${current.origin}, whose first entry binds that final checkpoint`);
  const next = stateFiles(`${stateFile}.successor`);
  await rm(next.state, { force: true });
  await rm(next.leaves, { force: true });
  const report = await runMonitorWithState(next, { fetch: (p) => get(`${current.monitoringPrefix}${p}`), logKeys: [check.successorKey] });
  for (const c of report.checks) console.log(`ok    ${c}`);
  if (!report.ok) return fail(`the new log: ${report.problem!.kind}: ${report.problem!.detail}`);
  const { leaves } = await readMonitorState(next);
  if (!leaves[0]?.equals(check.handoverLeaf!)) return fail("the new log's first entry as verified is not the handover checked");
  await rename(next.leaves, files.leaves);
  await rename(next.state, files.state);
  console.log(`verified ${report.treeSize} entries of ${current.origin}, which continues ${old.origin}; the state now follows it`);
  return 0;
}

async function run(args: string[], program: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      state: { type: 'string', default: 'ledger-monitor-state.json' },
      key: { type: 'string', multiple: true, default: [] },
      prefix: { type: 'string' },
      witness: { type: 'string', multiple: true, default: [] },
      'witnesses-required': { type: 'string' },
      'cosign-with': { type: 'string' },
      'new-witness-key': { type: 'string' },
    },
  });
  if (values['new-witness-key'] !== undefined) {
    const key = generateWitnessKey(values['new-witness-key']);
    process.stdout.write(`${key}\n`);
    console.error(`witness key (public; give it to the log operator and to verifiers):\n${witnessFromKey(key).witnessKey}`);
    return 0;
  }
  if (positionals.length !== 1 && !values.prefix) {
    console.error(`usage: ${program} ${MONITOR_USAGE}`);
    return 2;
  }
  const base = positionals[0]?.replace(/\/+$/, '');
  let prefix = values.prefix;
  let keys = values.key;
  if (!prefix || keys.length === 0) {
    const ledger = JSON.parse((await get(`${base}/v1/ledger`))?.toString('utf8') ?? 'null') as ServiceLedger | null;
    // A state of a log that a key change retired: verify it to its final checkpoint, then the handover, then its successor.
    if (!prefix && ledger?.logs) {
      const handed = await followHandover(values.state, ledger.logs, keys.length > 0 ? keys : (ledger.verifierKeys ?? []).map((k) => k.verifierKey));
      if (handed !== null) return handed;
    }
    prefix ??= ledger?.tiles?.monitoringPrefix;
    if (keys.length === 0) {
      keys = (ledger?.verifierKeys ?? []).map((k) => k.verifierKey);
      console.error(`keys: from the service's own /v1/ledger (pin them with --key to trust nothing it says): ${keys.join(', ') || 'none'}`);
    }
  }
  if (!prefix || !prefix.endsWith('/')) throw new Error(`no monitoring prefix ending in / (got ${prefix ?? 'nothing'}): pass --prefix URL`);
  const logKeys = await Promise.all(keys.map((key) => parseVerifierKey(key)));
  const witnesses = await Promise.all(values.witness.map((key) => parseWitnessKey(key)));
  const required = values['witnesses-required'] === undefined ? witnesses.length : Number(values['witnesses-required']);
  console.error(`log: ${prefix}`);
  let shown = -1;
  const report = await runMonitorWithState(stateFiles(values.state), {
    fetch: (logPath) => get(`${prefix}${logPath}`),
    logKeys,
    witnesses: witnesses.length > 0 || required > 0 ? { witnesses, required } : undefined,
    onProgress: (done, total) => {
      const percent = total === 0 ? 100 : Math.floor((100 * done) / total);
      if (percent === shown && done !== total) return;
      shown = percent;
      process.stderr.write(`\rverifying entries: ${done}/${total} (${percent}%)${done === total ? '\n' : ''}`);
    },
  });
  for (const check of report.checks) console.log(`ok    ${check}`);
  if (!report.ok) {
    const p = report.problem!;
    console.log(`FAIL  ${p.kind}${p.index !== undefined ? ` at entry ${p.index}` : ''}${p.path ? ` (${p.path})` : ''}: ${p.detail}`);
    console.log(`state kept at tree size ${report.previousSize} (${values.state})`);
    return 1;
  }
  console.log(
    report.previousSize === 0
      ? `verified ${report.treeSize} entries of ${report.origin}`
      : `${report.newEntries} new entries; the log only grew from ${report.previousSize} to ${report.treeSize}`,
  );
  if (values['cosign-with']) {
    const witness = witnessFromKey(await readFile(values['cosign-with'], 'utf8'));
    // The last line: the cosignature, for the log operator (who adds it to the published checkpoint).
    console.log(witness.cosign(report.state!.checkpoint));
  }
  return 0;
}

/** Runs the command; returns the exit status. `program` names the command in the usage line. */
export async function monitorCommand(args: string[], program = 'public-trust monitor'): Promise<number> {
  try {
    return await run(args, program);
  } catch (error) {
    console.error(`monitor could not run: ${(error as Error).message}`);
    return 2;
  }
}
