import { dts } from 'rollup-plugin-dts';

/**
 * The published declarations, one self-contained file per entry point and module format
 * (index.d.mts and index.d.ts, monitor.d.mts and monitor.d.ts). openapi-fetch's types are inlined
 * (respectExternal), since its code is bundled into the build; canonicalize and Node.js stay
 * external. tsup builds the JavaScript (tsup.config.ts).
 */
const entry = (name) => ({
  input: `src/${name}.ts`,
  plugins: [dts({ respectExternal: true, tsconfig: 'tsconfig.json' })],
  external: ['canonicalize', /^node:/],
  output: [
    { file: `dist/${name}.d.mts`, format: 'es' },
    { file: `dist/${name}.d.ts`, format: 'es' },
  ],
});

export default [entry('index'), entry('monitor')];
