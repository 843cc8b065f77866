import { operations } from '../../functions/contract/operations';
import { SEQUENCER_ENTRY } from '../../lib/stack/sequencer';
import { SEQUENCER_PART_ENTRY } from '../../lib/stack/sequencer-parts';
import { buildBundle, cardRuntimeIn } from '../support/bundle';

const lambdaOperations = operations.filter((op) => op.integration.kind === 'lambda');

/** The SDK's credential chain beyond the environment's provider, and the STS and SSO clients it calls. */
const CREDENTIAL_CHAIN = /@aws-sdk\/(credential-provider-(?!env\/)|nested-clients\/|token-providers\/)|@smithy\/credential-provider-imds\//;

/**
 * What goes into each function bundle. A namespace import of zod lets esbuild drop the parts a
 * function never uses (its ~40 locale tables alone are ~350 KiB); a named `{ z }` import keeps
 * everything. Functions that do not read the table must not carry the AWS SDK.
 */
describe.each(lambdaOperations.map((op) => [op.operationId, op] as const))('bundle of %s', (_id, op) => {
  let inputs: string[];
  let code: string;
  beforeAll(async () => {
    // Built as the stack builds it (lib/stack/bundling.ts); only what reaches the output counts.
    ({ inputs, code } = await buildBundle((op.integration as { entry: string }).entry));
  });

  // esbuild escapes non-ASCII characters in strings, not in template literals. One non-ASCII byte
  // makes Node.js read the whole bundle as a two-byte string, which V8 then decodes and scans more
  // slowly at every cold start (a '·' in the page frame's title cost a page about 5 million
  // instructions of a start, counted with valgrind); markup says &middot; instead.
  it('is ASCII throughout', () => {
    const at = code.search(/[^\x00-\x7f]/);
    expect(at === -1 ? null : code.slice(Math.max(0, at - 40), at + 10)).toBeNull();
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

  // The design card's runtime (README, Layout): every function is a middy handler logging with the
  // Powertools Logger, and with no other logger beside it.
  it('carries @middy/core and the Powertools Logger, and no second logger', () => {
    expect(cardRuntimeIn(inputs)).toEqual({ middy: true, powertoolsLogger: true, otherLoggers: [] });
  });

  // Lambda gives a function its role's credentials in the environment: the SDK's credential chain
  // (SSO, ini files, web identity, the metadata service, and the STS and SSO clients behind them)
  // is replaced by that one provider (lib/stack/bundling.ts, functions/aws/credentials.ts).
  it('carries no credential provider but the environment\'s', () => {
    const chain = inputs.filter((i) => CREDENTIAL_CHAIN.test(i));
    expect(chain).toEqual([]);
  });

  if (op.integration.kind === 'lambda' && op.integration.access === 'none') {
    it('carries no AWS SDK (it reaches no AWS resource)', () => {
      expect(inputs.filter((i) => i.includes('@aws-sdk/') || i.includes('@smithy/'))).toEqual([]);
    });
  }
});

/**
 * The sequencer (lib/stack/sequencer.ts) is no operation of the table: it is held here to what it
 * needs, the DynamoDB, S3 (tile log) and KMS (checkpoint key) clients, the service's logger and
 * Powertools Metrics (its oldest-pending-event metric, functions/ledger-writer/pending-age.ts), and
 * to nothing of the request path: no zod, no schema, no contract table (the integration rules take
 * their constants from the zod-free functions/contract/ingress-values.ts).
 */
describe('bundle of the sequencer', () => {
  const forbidden: Record<string, (input: string) => boolean> = {
    zod: (i) => i.includes('node_modules/zod/'),
    'the canonical event and record schemas': (i) =>
      i.startsWith('functions/contract/schemas/') || ['functions/contract/events.ts', 'functions/contract/ingress.ts', 'functions/contract/registry.ts'].includes(i),
    'the contract table': (i) => i.startsWith('functions/contract/operations/') || i === 'functions/contract/operation.ts' || i.startsWith('functions/generated/'),
    'the HTTP boundary': (i) => i.startsWith('functions/http/'),
    'page and HTML code': (i) => i.startsWith('functions/pages/') || i.startsWith('functions/domain/surfaces/') || i.startsWith('functions/browser/'),
    'infrastructure code (lib/, the CDK)': (i) => i.startsWith('lib/') || i.includes('aws-cdk-lib') || i.includes('constructs/'),
    'an AWS client it never calls': (i) => /@aws-sdk\/client-(?!dynamodb\/|s3\/|kms\/|lambda\/)/.test(i),
    'a credential provider but the environment\'s': (i) => CREDENTIAL_CHAIN.test(i),
    'the receivers\' Standard Webhooks': (i) => i.includes('node_modules/standardwebhooks/'),
    'Powertools beyond the Logger and Metrics': (i) => i.includes('node_modules/@aws-lambda-powertools/') && !/node_modules\/@aws-lambda-powertools\/(logger|metrics|commons)\//.test(i),
  };
  let inputs: string[];
  beforeAll(async () => {
    inputs = (await buildBundle(SEQUENCER_ENTRY)).inputs;
  });

  it('carries the clients and the metrics writer it uses, @middy/core and the Powertools Logger, and no second logger', () => {
    const packages = ['@aws-sdk/client-dynamodb/', '@aws-sdk/client-s3/', '@aws-sdk/client-kms/', '@aws-sdk/client-lambda/', '@aws-lambda-powertools/metrics/'];
    expect(packages.filter((p) => !inputs.some((i) => i.includes(`node_modules/${p}`)))).toEqual([]);
    expect(cardRuntimeIn(inputs)).toEqual({ middy: true, powertoolsLogger: true, otherLoggers: [] });
  });

  it.each(Object.keys(forbidden))('carries no %s', (what) => {
    expect({ what, found: inputs.filter(forbidden[what]) }).toEqual({ what, found: [] });
  });
});

/**
 * The part writers (lib/stack/sequencer-parts.ts) plan and write the records and events of a part
 * of a batch and store tiles of the tile log: the DynamoDB and S3 clients, the rules and the
 * journal's chunks, and nothing of the ledger's own writing (its head, its key: no KMS, no Lambda
 * client) nor of the request path.
 */
describe('bundle of the part writers', () => {
  const forbidden: Record<string, (input: string) => boolean> = {
    zod: (i) => i.includes('node_modules/zod/'),
    'the contract table': (i) => i.startsWith('functions/contract/operations/') || i === 'functions/contract/operation.ts' || i.startsWith('functions/generated/'),
    'the HTTP boundary': (i) => i.startsWith('functions/http/'),
    'page and HTML code': (i) => i.startsWith('functions/pages/') || i.startsWith('functions/domain/surfaces/') || i.startsWith('functions/browser/'),
    'infrastructure code (lib/, the CDK)': (i) => i.startsWith('lib/') || i.includes('aws-cdk-lib') || i.includes('constructs/'),
    'an AWS client but DynamoDB\'s and S3\'s': (i) => /@aws-sdk\/client-(?!dynamodb\/|s3\/)/.test(i),
    'the ledger\'s own writing (its head, its key)': (i) => ['functions/ledger-writer/held-ledger.ts', 'functions/ledger-writer/kms-signer.ts', 'functions/store/dynamodb/ledger-head.ts'].includes(i),
    'a credential provider but the environment\'s': (i) => CREDENTIAL_CHAIN.test(i),
    'Powertools beyond the Logger': (i) => i.includes('node_modules/@aws-lambda-powertools/') && !/node_modules\/@aws-lambda-powertools\/(logger|commons)\//.test(i),
  };
  let inputs: string[];
  beforeAll(async () => {
    inputs = (await buildBundle(SEQUENCER_PART_ENTRY)).inputs;
  });

  it('carries the DynamoDB and S3 clients, @middy/core and the Powertools Logger, and no second logger', () => {
    expect(['client-dynamodb', 'client-s3'].filter((c) => !inputs.some((i) => i.includes(`node_modules/@aws-sdk/${c}/`)))).toEqual([]);
    expect(cardRuntimeIn(inputs)).toEqual({ middy: true, powertoolsLogger: true, otherLoggers: [] });
  });

  it.each(Object.keys(forbidden))('carries no %s', (what) => {
    expect({ what, found: inputs.filter(forbidden[what]) }).toEqual({ what, found: [] });
  });
});
