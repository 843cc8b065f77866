#!/usr/bin/env node
/**
 * public-trust verify <URL or file> [--key VERIFIER_KEY]...   re-checks an answer's ledger evidence
 * public-trust monitor <base URL> --state FILE [--key KEY]... audits the whole log (C2SP tlog-tiles)
 *
 * Exit status: 0 verified, 1 not verified or a problem found, 2 could not run.
 */
import { MONITOR_USAGE, monitorCommand } from './cli/monitor-command';
import { VERIFY_USAGE, verifyCommand } from './cli/verify-command';

const USAGE = `usage: public-trust verify ${VERIFY_USAGE}\n       public-trust monitor ${MONITOR_USAGE}`;

async function main([command, ...args]: string[]): Promise<number> {
  if (command === 'verify') return verifyCommand(args);
  if (command === 'monitor') return monitorCommand(args);
  if (command === '--help' || command === '-h') {
    console.log(USAGE);
    return 0;
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then((code) => process.exit(code));
