/**
 * How every operation's Lambda is built and started. The stack and the benchmark both read
 * these values, so the bundles measured by `npm run bench` are the bundles that are deployed.
 */

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

/** Minified bundles with external source maps (no sources embedded: smaller artefacts). */
export const BUNDLE_OPTIONS = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: ESBUILD_TARGET,
} as const;

/**
 * Node options every function starts with: stack traces in the logs point at the TypeScript
 * sources through the bundle's source map.
 */
export const NODE_OPTIONS = '--enable-source-maps';

/**
 * Each function's time limit. The middy boundary answers 503 a few milliseconds before it (the
 * store's own budget is far shorter), and the local host gives handlers the same limit.
 */
export const FUNCTION_TIMEOUT_SECONDS = 6;
