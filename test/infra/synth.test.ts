import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { operations } from '../../functions/contract/operations';
import { STACK_NAME } from '../../lib/stack/app';
import { lambdaOperations } from '../../lib/stack/operation-functions';
import { cardRuntimeIn } from '../support/bundle';
import { cfnLintErrors } from '../support/cfn-lint';
import { synthesizedAssembly, type Synthesis } from '../support/synth';

/**
 * The real thing: `cdk synth` through the pinned CLI, offline, with bin/app.ts, the build output
 * in dist/site, the cdk-nag validation and local esbuild bundling of every function (made once
 * per test run and shared with the suite that runs the assembly: test/support/synth.ts).
 */
let synth: Synthesis;
let outdir: string;

beforeAll(async () => {
  synth = await synthesizedAssembly();
  outdir = synth.dir;
}, 180_000);

test('cdk synth writes one stack and a clean validation report', () => {
  const manifest = JSON.parse(readFileSync(path.join(outdir, 'manifest.json'), 'utf8'));
  const stacks = Object.values(manifest.artifacts as Record<string, { type: string }>).filter((a) => a.type === 'aws:cloudformation:stack');
  expect(stacks).toHaveLength(1);
  const report = path.join(outdir, 'validation-report.json');
  if (existsSync(report)) {
    const violations = JSON.parse(readFileSync(report, 'utf8')).pluginReports.flatMap((r: { violations: unknown[] }) => r.violations);
    expect(violations).toEqual([]);
  }
});

test('cfn-lint finds no error in the synthesized template (its warnings are CDK\'s redundant DependsOn)', async () => {
  expect(await cfnLintErrors([path.join(outdir, `${STACK_NAME}.template.json`)])).toEqual([]);
}, 120_000);

test('every function (each Lambda operation, the sequencer and its part writers) is bundled locally: minified index.js with an external source map, no sources embedded', () => {
  const template = JSON.parse(readFileSync(path.join(outdir, `${STACK_NAME}.template.json`), 'utf8'));
  const assets = JSON.parse(readFileSync(path.join(outdir, `${STACK_NAME}.assets.json`), 'utf8'));
  const functions = Object.values(template.Resources as Record<string, any>).filter(
    (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Runtime).startsWith('nodejs'),
  );
  // One per Lambda operation, the sequencer, its part writers and the deploy-time verifier key's.
  expect(functions).toHaveLength(lambdaOperations(operations).length + 3);
  for (const fn of functions) {
    const hash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
    const dir = path.join(outdir, assets.files[hash].source.path);
    const code = readFileSync(path.join(dir, 'index.js'), 'utf8');
    // Minified: esbuild's module helpers are renamed (unminified output declares `var __defProp = ...`)
    // and statements are not put on lines of their own; the map lies beside it.
    expect(code).not.toMatch(/\b__defProp\b/);
    expect(code.slice(0, 200)).not.toContain('\n');
    expect(code).toMatch(/\/\/# sourceMappingURL=index\.js\.map\s*$/);
    const map = JSON.parse(readFileSync(path.join(dir, 'index.js.map'), 'utf8'));
    expect(map.sourcesContent).toBeUndefined();
    expect(statSync(path.join(dir, 'index.js')).size).toBeGreaterThan(0);
  }
});

test('every function that carries the AWS SDK takes its credentials from the environment alone (the alias reached esbuild)', () => {
  const template = JSON.parse(readFileSync(path.join(outdir, `${STACK_NAME}.template.json`), 'utf8'));
  const assets = JSON.parse(readFileSync(path.join(outdir, `${STACK_NAME}.assets.json`), 'utf8'));
  const functions = Object.values(template.Resources as Record<string, any>).filter(
    (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Runtime).startsWith('nodejs'),
  );
  let withSdk = 0;
  for (const fn of functions) {
    const hash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
    const sources = JSON.parse(readFileSync(path.join(outdir, assets.files[hash].source.path, 'index.js.map'), 'utf8')).sources as string[];
    if (!sources.some((source) => source.includes('node_modules/@aws-sdk/client-'))) continue;
    withSdk++;
    expect(sources.filter((source) => source.endsWith('functions/aws/credentials.ts'))).toHaveLength(1);
    expect(sources.filter((source) => /@aws-sdk\/(credential-provider-(?!env\/)|nested-clients\/)/.test(source))).toEqual([]);
  }
  // The table readers, the receivers and the sequencer.
  expect(withSdk).toBeGreaterThan(10);
});

test('every synthesized function bundle carries @middy/core and the Powertools Logger, and no second logger', () => {
  const template = JSON.parse(readFileSync(path.join(outdir, `${STACK_NAME}.template.json`), 'utf8'));
  const assets = JSON.parse(readFileSync(path.join(outdir, `${STACK_NAME}.assets.json`), 'utf8'));
  const functions = Object.entries(template.Resources as Record<string, any>).filter(
    ([, r]) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Runtime).startsWith('nodejs') && r.Properties.Handler === 'index.handler',
  );
  expect(functions).toHaveLength(lambdaOperations(operations).length + 3);
  for (const [logicalId, fn] of functions) {
    const hash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
    const sources = JSON.parse(readFileSync(path.join(outdir, assets.files[hash].source.path, 'index.js.map'), 'utf8')).sources as string[];
    // Map sources are relative to the asset folder; from the project root they start at node_modules/ or functions/.
    const inputs = sources.map((source) => /(?:^|\/)((?:node_modules|functions)\/.*)$/.exec(source)?.[1] ?? source);
    expect({ logicalId, ...cardRuntimeIn(inputs) }).toEqual({ logicalId, middy: true, powertoolsLogger: true, otherLoggers: [] });
  }
});

test('the published documents are staged from dist/site', () => {
  const assets = JSON.parse(readFileSync(path.join(outdir, `${STACK_NAME}.assets.json`), 'utf8'));
  const staged = Object.values(assets.files as Record<string, { source: { path: string } }>).map((f) => f.source.path);
  const documents = operations.flatMap((op) => (op.integration.kind === 'document' ? [op.integration.key] : []));
  for (const key of documents) {
    expect(staged.some((dir) => existsSync(path.join(outdir, dir, key)))).toBe(true);
  }
  expect(synth.stderr).not.toMatch(/\bError\b/);
});
