const { mkdtempSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/**
 * One temporary folder per test run, shared by every jest worker (they inherit this environment):
 * what several suites need and is slow to make is made there once (test/support/synth.ts: the
 * synthesized cloud assembly). globalTeardown removes it.
 */
module.exports = async () => {
  process.env.TRUST_TEST_RUN_DIR = mkdtempSync(path.join(os.tmpdir(), 'trust-test-run-'));
};
