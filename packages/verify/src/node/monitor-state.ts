import { appendFile, mkdir, readFile, rename, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HASH_SIZE } from '../checks/merkle';
import { MONITOR_STATE_FORMAT, runMonitor, type MonitorOptions, type MonitorReport, type MonitorState } from './monitor';

/**
 * The monitor's memory between runs: STATE (JSON: the last verified checkpoint) and STATE.leaves
 * (the verified leaf hashes, 32 bytes each, appended as they are verified, so an interrupted run
 * resumes where it stopped). A failed run keeps the last verified state and drops what it added.
 */
export interface StateFiles {
  state: string;
  leaves: string;
}

export const stateFiles = (state: string): StateFiles => ({ state, leaves: `${state}.leaves` });

export async function readMonitorState(files: StateFiles): Promise<{ state: MonitorState | null; leaves: Buffer[] }> {
  let state: MonitorState | null = null;
  try {
    state = JSON.parse(await readFile(files.state, 'utf8')) as MonitorState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`the monitor state ${files.state} cannot be read: ${(error as Error).message}`);
  }
  if (state && (state.format !== MONITOR_STATE_FORMAT || !Number.isSafeInteger(state.treeSize))) throw new Error(`${files.state} is not a monitor state (${MONITOR_STATE_FORMAT})`);
  let bytes = Buffer.alloc(0);
  try {
    bytes = await readFile(files.leaves);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const whole = Math.floor(bytes.length / HASH_SIZE);
  const leaves = Array.from({ length: whole }, (_, i) => bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
  return { state, leaves };
}

/** One run with its state kept in files: reads them, runs, appends leaves as verified, saves or rolls back. */
export async function runMonitorWithState(files: StateFiles, options: Omit<MonitorOptions, 'state' | 'leaves' | 'onLeaves'>): Promise<MonitorReport> {
  const { state, leaves } = await readMonitorState(files);
  await mkdir(path.dirname(path.resolve(files.state)), { recursive: true });
  // A partly written hash (a run killed mid-write) is dropped; so are leaves beyond a size the log no longer has.
  await truncateTo(files.leaves, leaves.length);
  const report = await runMonitor({
    ...options,
    state,
    leaves,
    onLeaves: async (added) => {
      await appendFile(files.leaves, Buffer.concat(added));
    },
  });
  if (report.ok && report.state) {
    const temporary = `${files.state}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(report.state, null, 2)}\n`);
    await rename(temporary, files.state);
  } else if (report.problem) {
    await truncateTo(files.leaves, state?.treeSize ?? 0);
  }
  return report;
}

async function truncateTo(file: string, count: number): Promise<void> {
  try {
    await truncate(file, count * HASH_SIZE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
