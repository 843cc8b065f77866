const { rmSync } = require('node:fs');

module.exports = async () => {
  if (process.env.TRUST_TEST_RUN_DIR) rmSync(process.env.TRUST_TEST_RUN_DIR, { recursive: true, force: true });
};
