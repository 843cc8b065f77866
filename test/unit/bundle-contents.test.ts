import { build } from 'esbuild';
import path from 'node:path';
import { operations } from '../../functions/contract/operations';

const ROOT = path.resolve(__dirname, '../..');
const lambdaOperations = operations.filter((op) => op.integration.kind === 'lambda');

/**
 * What goes into each function bundle. A namespace import of zod lets esbuild drop the parts a
 * function never uses (its ~40 locale tables alone are ~350 KiB); a named `{ z }` import keeps
 * everything. Functions that do not read the table must not carry the AWS SDK.
 */
describe.each(lambdaOperations.map((op) => [op.operationId, op] as const))('bundle of %s', (_id, op) => {
  let inputs: string[];
  beforeAll(async () => {
    const entry = (op.integration as { entry: string }).entry;
    const result = await build({
      entryPoints: [path.join(ROOT, entry)],
      bundle: true,
      minify: true,
      platform: 'node',
      target: 'node22',
      format: 'cjs',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    // Only what reaches the output counts (esbuild lists tree-shaken files with 0 bytes).
    const output = Object.values(result.metafile!.outputs)[0];
    inputs = Object.entries(output.inputs)
      .filter(([, info]) => info.bytesInOutput > 0)
      .map(([input]) => input);
  });

  it('carries no zod locale but English', () => {
    expect(inputs.filter((i) => /zod\/v4\/locales\/(?!en\.js|index\.js)/.test(i))).toEqual([]);
  });

  it('carries no infrastructure code (lib/, the CDK)', () => {
    expect(inputs.filter((i) => i.startsWith('lib/') || i.includes('aws-cdk-lib') || i.includes('constructs/'))).toEqual([]);
  });

  if (op.integration.kind === 'lambda' && op.integration.access === 'none') {
    it('carries no AWS SDK (it reaches no AWS resource)', () => {
      expect(inputs.filter((i) => i.includes('@aws-sdk/') || i.includes('@smithy/'))).toEqual([]);
    });
  }
});
