import { defineConfig } from 'tsup';

/**
 * The published JavaScript: ESM (.mjs) and CommonJS (.js) entry points for the API and the Node.js
 * monitor, and the CLI. openapi-fetch (MIT, a few KB) is bundled in, so the one runtime dependency
 * stays the canonical-JSON package. The declarations come from rollup.dts.config.mjs.
 */
export default defineConfig([
  {
    entry: { index: 'src/index.ts', monitor: 'src/monitor.ts' },
    format: ['esm', 'cjs'],
    target: 'es2022',
    platform: 'neutral',
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
