/**
 * How every operation's Lambda is built and started. The stack and the benchmark both read
 * these values, so the bundles measured by `npm run bench` are the bundles that are deployed.
 */

import path from 'node:path';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { BuildOptions } from 'esbuild';

/** Lambda runtime major version; the esbuild target follows it. */
export const NODE_MAJOR = 22;

/** esbuild target for the bundles (the Lambda runtime's Node.js major). */
export const ESBUILD_TARGET = `node${NODE_MAJOR}`;

/**
 * The AWS SDK is bundled (not taken from the runtime): the deployed code then runs the exact SDK
 * version the tests ran, and a minified bundle of one client loads faster than the runtime's
 * full SDK from disk.
 */
export const BUNDLE_AWS_SDK = true;

/**
 * Minified bundles with external source maps (no sources embedded: smaller artefacts).
 * `mainFields` puts `module` first: packages that ship both (the AWS SDK, smithy) are then
 * bundled from their ES module builds, which esbuild can tree-shake; from their CommonJS builds it
 * keeps everything. Measured here: the DynamoDB-client-only bundle went from 513 to 322 KiB and
 * its cold init from 81 to 52 ms. The output stays CommonJS: the same bundles as ES modules
 * (index.mjs, which the Lambda runtime loads with import()) are the same size but started 5-6 ms
 * later on Node 20 and about 14 ms later on Node 22 here (15 interleaved fresh processes).
 */
export const BUNDLE_OPTIONS = {
  minify: true as const,
  sourceMap: true as const,
  sourcesContent: false as const,
  target: ESBUILD_TARGET,
  mainFields: ['module', 'main'],
};

/**
 * The SDK's default credential chain is replaced, in every bundle, by the environment's credentials
 * alone (functions/aws/credentials.ts), which is where Lambda puts the execution role's and all
 * the chain ever reads on Lambda. Measured here: the DynamoDB-client-only bundle goes from 324 to
 * 192 KiB and its cold init CPU time down by about a sixth (npm run bench -- core, the yardstick
 * rows). The path is resolved from the project root, where both the stack's local esbuild and
 * the bench run.
 */
export const CREDENTIALS_ALIAS = { '@aws-sdk/credential-provider-node': './functions/aws/credentials.ts' } as const;

/** The same, as NodejsFunction passes it to esbuild (`--alias:FROM=TO`). */
export const CREDENTIALS_ESBUILD_ARGS = {
  '--alias': Object.entries(CREDENTIALS_ALIAS).map(([from, to]) => `${from}=${to}`),
};

/**
 * The esbuild options NodejsFunction builds every bundle with (the options above, the bundled SDK,
 * the credentials alias), for the code that runs esbuild itself to get the same bundle: the bench
 * and the tests (test/infra/synth.test.ts holds the real synthesized assets to the same rules).
 * `credentials: 'sdk-chain'` keeps the SDK's own chain: the stock client of the bench's yardstick.
 */
export function esbuildOptionsAsDeployed({ credentials = 'environment' }: { credentials?: 'environment' | 'sdk-chain' } = {}) {
  return {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: BUNDLE_OPTIONS.target,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    minify: BUNDLE_OPTIONS.minify,
    sourcemap: BUNDLE_OPTIONS.sourceMap,
    sourcesContent: BUNDLE_OPTIONS.sourcesContent,
    external: BUNDLE_AWS_SDK ? [] : ['@aws-sdk/*'],
    ...(credentials === 'environment' ? { alias: { ...CREDENTIALS_ALIAS } } : {}),
  } satisfies BuildOptions;
}

/**
 * Node options by the deployment's log level. `--enable-source-maps` makes Node read and parse a
 * bundle's source map when it loads the bundle, at every cold start, whether or not a stack
 * trace is ever printed: measured here it added about 17 ms (~17%) to the cold init of a bundle
 * holding only the DynamoDB client, more for larger bundles. So only DEBUG deployments pay for
 * source-mapped stack traces; at other levels a logged stack points into the minified bundle, and
 * the source map deployed beside it (index.js.map) translates it offline.
 */
export function nodeOptionsFor(logLevel: string): string | undefined {
  return logLevel === 'DEBUG' ? '--enable-source-maps' : undefined;
}

/** The log level the benchmark measures functions at (the stack's default). */
export const BENCH_LOG_LEVEL = 'INFO';

/**
 * Each function's time limit. The Lambda boundary (functions/http/boundary.ts) answers 503 a few
 * milliseconds before it (the store's own budget is far shorter), and the local host gives
 * handlers the same limit.
 */
export const FUNCTION_TIMEOUT_SECONDS = 6;

/**
 * What every function of the stack is (NodejsFunction's props): the handler `handler` of `entry`
 * (relative to the project root), bundled here by esbuild as above (never in Docker), on Node
 * NODE_MAJOR on arm64.
 */
export function deployedFunction(projectRoot: string, entry: string) {
  return {
    entry: path.join(projectRoot, entry),
    projectRoot,
    depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
    handler: 'handler',
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    // AWS_NODEJS_CONNECTION_REUSE_ENABLED belongs to SDK v2; SDK v3 keeps connections alive by default.
    awsSdkConnectionReuse: false,
    bundling: { ...BUNDLE_OPTIONS, bundleAwsSDK: BUNDLE_AWS_SDK, esbuildArgs: CREDENTIALS_ESBUILD_ARGS, forceDockerBundling: false },
  };
}
