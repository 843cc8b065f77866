// Node.js, ECMAScript modules: `import` resolves the package's "import" entry (dist/index.mjs).
import * as pkg from '@public-trust/verify';
import scenario from './scenario.cjs';

const input = JSON.parse(process.env.SCENARIO_INPUT);
process.stdout.write(JSON.stringify({ entry: import.meta.resolve('@public-trust/verify'), ...(await scenario(pkg, input)) }));
