/**
 * npm run monitor -- <base URL> [--state FILE] [--key VERIFIER_KEY]... [--prefix URL]
 *                    [--witness WITNESS_KEY]... [--witnesses-required K] [--cosign-with FILE]
 * npm run monitor -- --new-witness-key NAME
 *
 * The verifier package's `monitor` command (packages/verify: `public-trust monitor` for those who
 * install it): audits the ledger's tile log and, for a witness, cosigns what it verified.
 * Exit status 0 verified, 1 a problem found, 2 could not run.
 */
import { monitorCommand } from '#verify/cli/monitor-command';

monitorCommand(process.argv.slice(2), 'npm run monitor --').then((code) => process.exit(code));
