/** Jest runs TypeScript through SWC (no type-check here: `npm run typecheck` does that). */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest'] },
  // @middy/core ships ESM only; let SWC turn it into CommonJS like the project's own files.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
  setupFiles: ['<rootDir>/test/setup-env.js'],
};
