/**
 * Jest runs TypeScript through SWC (no type-check here: `npm run typecheck` does that).
 * @middy/core 7 and @middy/util ship ES modules only (`exports` has an `import` condition alone),
 * which Jest's CommonJS module system cannot load as they are: they are mapped to their entry files
 * and compiled by SWC like the project's own code. Lambda, esbuild and tsx load them as they are.
 */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  moduleNameMapper: {
    '^@middy/(core|util)$': '<rootDir>/node_modules/@middy/$1/index.js',
    // The verifier's modules by the project's import alias (package.json "imports"), as tsc, tsx and esbuild resolve it.
    '^#verify/(.*)$': '<rootDir>/packages/verify/src/$1',
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Jest's default is one worker fewer than the cores: one worker on a 2-core machine, every suite
  // one after another. Most suites spend their time waiting on processes of their own (the store,
  // a browser, cdk synth, the loader CLI), so two workers there halve the run's wall time.
  maxWorkers: Math.max(2, require('node:os').availableParallelism() - 1),
  testTimeout: 60000,
  setupFiles: ['<rootDir>/test/setup-env.js'],
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
};
