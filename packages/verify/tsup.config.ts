import { defineConfig } from 'tsup';

/**
 * The published build: ESM (.mjs) and CommonJS (.js) entry points with their declarations
 * (.d.mts, .d.ts) for the API and the Node.js monitor, and the CLI. openapi-fetch (MIT, a few KB)
 * is bundled in, with its types, so the one runtime dependency stays the canonical-JSON package.
 */
export default defineConfig([
  {
    entry: { index: 'src/index.ts', monitor: 'src/monitor.ts' },
    format: ['esm', 'cjs'],
    target: 'es2022',
    platform: 'neutral',
    dts: { resolve: ['openapi-fetch', 'openapi-typescript-helpers'] },
    noExternal: ['openapi-fetch'],
    external: ['canonicalize', /^node:/],
    splitting: false,
    sourcemap: false,
    clean: true,
    treeshake: true,
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    external: ['canonicalize'],
    noExternal: ['openapi-fetch'],
    clean: false,
  },
]);
