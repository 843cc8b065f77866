import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * cfn-lint's errors (E....) in the templates, one line each; warnings (W....) and informational
 * findings are not errors. cfn-lint reads the templates offline (its resource specifications ship
 * with it).
 */
export async function cfnLintErrors(templates: readonly string[]): Promise<string[]> {
  let output: string;
  try {
    output = (await run('cfn-lint', ['--format', 'parseable', ...templates], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string };
    if (failed.code === 'ENOENT') throw new Error('cfn-lint is not installed: `pipx install cfn-lint` (or `pip install cfn-lint`), then run the tests again');
    // cfn-lint exits non-zero whenever it reports anything (2: errors, 4: warnings, 8: informational, summed).
    output = failed.stdout ?? '';
  }
  return output
    .split('\n')
    .filter((line) => /:E\d{4}:/.test(line))
    .map((line) => line.replace(/^.*\//, ''));
}
