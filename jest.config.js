/** Jest runs TypeScript through SWC (no type-check here: `npm run typecheck` does that). */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
  setupFiles: ['<rootDir>/test/setup-env.js'],
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
};
