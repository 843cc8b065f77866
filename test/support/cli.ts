import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/**
 * One of the repository's commands (`bin/verify.ts`, `bin/monitor.ts`, `bin/rotate.ts`, ...) run
 * as `npm run` runs it: through tsx, from the repository. Never throws: the exit code, and what
 * it printed (stdout; with stderr after it when it failed, where a command says why).
 */
export async function runCommand(script: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string }> {
  return run(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, script), ...args], { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 })
    .then(({ stdout }) => ({ code: 0, stdout }))
    .catch((e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: `${e.stdout}${e.stderr}` }));
}
