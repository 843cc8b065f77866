/**
 * npm run verify -- <URL or file> [--key VERIFIER_KEY]... [--ledger URL] [--witness WITNESS_KEY]... [--witnesses-required K]
 *
 * The verifier package's `verify` command (packages/verify: `public-trust verify` for those who
 * install it): re-checks the ledger evidence of an answer offline and prints each check.
 * Exit status: 0 verified, 1 not verified, 2 could not run.
 */
import { verifyCommand } from '#verify/cli/verify-command';

verifyCommand(process.argv.slice(2), 'npm run verify --').then((code) => process.exit(code));
