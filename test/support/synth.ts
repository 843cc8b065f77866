import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../lib/stack/trust-service-stack';

const run = promisify(execFile);

export interface Synthesis {
  /** The cloud assembly folder (`cdk synth -o`). */
  dir: string;
  stdout: string;
  stderr: string;
}

/** The one setting an operator must choose (without an origin the synth stops): the log's origin. */
export const SYNTH_LEDGER_ORIGIN = 'verify.example.org/ledger';

const POLL_MS = 250;
const WAIT_LIMIT_MS = 5 * 60_000;

/**
 * `cdk synth` through the pinned CLI, offline, as an operator runs it (bin/app.ts, the build output
 * in dist/site, cdk-nag, local esbuild bundling of every function), made once per test run: the
 * first suite to ask synthesizes into the run's folder (test/global-setup.js), every other suite,
 * in any worker, waits for it and reads the same assembly. Outside a jest run, into a folder of its own.
 */
export async function synthesizedAssembly(): Promise<Synthesis> {
  const runDir = process.env.TRUST_TEST_RUN_DIR ?? mkdtempSync(path.join(tmpdir(), 'trust-synth-'));
  const dir = path.join(runDir, 'cdk.out');
  const done = path.join(runDir, 'synth.json');
  try {
    // mkdir is atomic: exactly one suite of the run wins and synthesizes.
    mkdirSync(path.join(runDir, 'synth.lock'));
  } catch {
    const started = Date.now();
    while (!existsSync(done)) {
      if (Date.now() - started > WAIT_LIMIT_MS) throw new Error('the shared synthesis did not finish in time');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const outcome = JSON.parse(readFileSync(done, 'utf8')) as Synthesis & { error?: string };
    if (outcome.error) throw new Error(`the shared synthesis failed: ${outcome.error}`);
    return outcome;
  }
  try {
    const { stdout, stderr } = await run(path.join(PROJECT_ROOT, 'node_modules/.bin/cdk'), ['synth', '--no-notices', '--quiet', '--context', `ledgerOrigin=${SYNTH_LEDGER_ORIGIN}`, '--output', dir], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_DISABLE_CLI_TELEMETRY: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const synthesis = { dir, stdout, stderr };
    writeFileSync(done, JSON.stringify(synthesis));
    return synthesis;
  } catch (error) {
    writeFileSync(done, JSON.stringify({ dir, stdout: '', stderr: '', error: (error as Error).message }));
    throw error;
  }
}
