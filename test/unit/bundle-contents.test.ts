import { operations } from '../../functions/contract/operations';
import { buildBundle } from '../support/bundle';

const lambdaOperations = operations.filter((op) => op.integration.kind === 'lambda');

/**
 * What goes into each function bundle. A namespace import of zod lets esbuild drop the parts a
 * function never uses (its ~40 locale tables alone are ~350 KiB); a named `{ z }` import keeps
 * everything. Functions that do not read the table must not carry the AWS SDK.
 */
describe.each(lambdaOperations.map((op) => [op.operationId, op] as const))('bundle of %s', (_id, op) => {
  let inputs: string[];
  beforeAll(async () => {
    // Built as the stack builds it (lib/stack/bundling.ts); only what reaches the output counts.
    inputs = (await buildBundle((op.integration as { entry: string }).entry)).inputs;
  });

  it('carries no zod locale but English', () => {
    expect(inputs.filter((i) => /zod\/v4\/locales\/(?!en\.js|index\.js)/.test(i))).toEqual([]);
  });

  it('carries no infrastructure code (lib/, the CDK)', () => {
    expect(inputs.filter((i) => i.startsWith('lib/') || i.includes('aws-cdk-lib') || i.includes('constructs/'))).toEqual([]);
  });

  // Parameters are checked by validators generated from the table (functions/generated/params.ts),
  // JSON request bodies (the receivers' CloudEvents included) by checks generated from their
  // schemas (functions/generated/bodies.ts); route lists and the asset catalogue come from
  // functions/generated/. No function needs the schemas themselves.
  it('carries neither zod nor the contract table', () => {
    const tableOrSchemas = (i: string) =>
      i.startsWith('functions/contract/operations/') ||
      i.includes('node_modules/zod/') ||
      i.startsWith('functions/contract/schemas/') ||
      i === 'functions/contract/events.ts' ||
      i === 'functions/contract/ingress.ts';
    expect(inputs.filter(tableOrSchemas)).toEqual([]);
  });

  if (op.integration.kind === 'lambda' && op.integration.access === 'none') {
    it('carries no AWS SDK (it reaches no AWS resource)', () => {
      expect(inputs.filter((i) => i.includes('@aws-sdk/') || i.includes('@smithy/'))).toEqual([]);
    });
  }
});
