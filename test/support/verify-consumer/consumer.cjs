// Node.js, CommonJS: `require` resolves the package's "require" entry (dist/index.js).
const pkg = require('@public-trust/verify');
const scenario = require('./scenario.cjs');

scenario(pkg, JSON.parse(process.env.SCENARIO_INPUT)).then((result) => {
  process.stdout.write(JSON.stringify({ entry: require.resolve('@public-trust/verify'), ...result }));
});
