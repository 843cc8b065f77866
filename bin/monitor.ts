/**
 * npm run monitor -- [<base URL>] [--state FILE] [--key VERIFIER_KEY]... [--prefix URL]
 *                    [--witness WITNESS_KEY]... [--witnesses-required K] [--cosign-with FILE]
 * npm run monitor -- --new-witness-key NAME
 *
 * The verifier package's `monitor` command (packages/verify: `public-trust monitor` for those who
 * install it): audits the ledger's tile log and, for a witness, cosigns what it verified.
 * Exit status 0 verified, 1 a problem found, 2 could not run.
 *
 * Run from this repository it keeps its state under .data/monitor/ (one file per host and port,
 * lib/local/data-dir.ts) unless --state says otherwise, so that nothing lands in the working tree,
 * and without a base URL it audits the local service (SERVICE_URL, else the port of PORT, else
 * 3000), as `npm run emit` does.
 */
import { parseArgs } from 'node:util';
import { monitorCommand } from '#verify/cli/monitor-command';
import { defaultServiceUrl, monitorStateFile } from '../lib/local/data-dir';

/** The arguments with this repository's defaults filled in; arguments it cannot read are passed on for the command to refuse. */
function withLocalDefaults(args: string[]): string[] {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        state: { type: 'string' },
        key: { type: 'string', multiple: true },
        prefix: { type: 'string' },
        witness: { type: 'string', multiple: true },
        'witnesses-required': { type: 'string' },
        'cosign-with': { type: 'string' },
        'new-witness-key': { type: 'string' },
      },
    });
  } catch {
    return args;
  }
  const { values, positionals } = parsed;
  if (values['new-witness-key'] !== undefined) return args;
  const out = [...args];
  let base = positionals[0];
  if (base === undefined && values.prefix === undefined) {
    base = defaultServiceUrl();
    out.unshift(base);
  }
  if (values.state === undefined) out.push('--state', monitorStateFile(base ?? values.prefix!));
  return out;
}

monitorCommand(withLocalDefaults(process.argv.slice(2)), 'npm run monitor --').then((code) => process.exit(code));
