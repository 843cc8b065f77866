import { DefaultStackSynthesizer, Token, Validations, type CfnResource, type Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { LEDGER_LOG } from '../../functions/contract/site-paths';

/** The parts of the stack that carry an accepted finding (the stack passes itself). */
export interface AcknowledgedStack extends Stack {
  functions: { byOperationId: ReadonlyMap<string, IConstruct> };
  sequencer: { function: IConstruct; role: IConstruct; parts?: { function: IConstruct; role: IConstruct } };
  ledgerKeys: { generations: ReadonlyArray<{ verifierKey: { function: IConstruct } }> };
  catalogue: { bucket: IConstruct; apiReadRole: IConstruct };
  loader: { role: IConstruct };
  ingress: { secret: IConstruct };
  publicApi: { api: IConstruct & { deploymentStage: IConstruct }; accessLogs: IConstruct | undefined };
  edge?: { distribution: IConstruct };
  settings: { verificationDomain: string; generalDomain: string; wafRateLimit: number | null };
}

const acknowledge = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });

const LAMBDA_RUNTIME_REASON =
  'Node.js 22 (LTS, supported by Lambda until 2027) is the runtime the bundles are built for (esbuild target node22) and measured on by npm run bench; ' +
  'moving to a newer runtime is one constant in lib/stack/bundling.ts, made when the toolchain is checked on it.';

/** A stack attribute as cdk-nag writes it in a finding: the value when the stack is bound to one, else the pseudo parameter. */
const known = (value: string, pseudo: string) => (Token.isUnresolved(value) ? pseudo : value);

/** CDK's BucketDeployment provider: a singleton function at stack level, created by aws-cdk-lib. */
function acknowledgeBucketDeploymentProvider(stack: AcknowledgedStack): void {
  const provider = stack.node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!provider) return;
  const logicalId = (resource: IConstruct) => stack.resolve(stack.getLogicalId(resource as CfnResource)) as string;
  const catalogueBucket = logicalId(stack.catalogue.bucket.node.defaultChild!);
  const qualifier = (stack.synthesizer as Partial<DefaultStackSynthesizer> & { qualifier?: string }).qualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
  const syncReason =
    'aws-cdk-lib\'s BucketDeployment provider copies the build output from the CDK asset bucket into the catalogue bucket (aws s3 sync): ' +
    'it lists, reads, writes and prunes objects, and its wildcards are confined to those two buckets. It runs only during deployments.';
  acknowledge(
    provider,
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'aws-cdk-lib\'s BucketDeployment provider function is created with this role by the library; the managed policy only lets it write its own logs.',
  );
  for (const finding of [
    'Action::s3:GetObject*',
    'Action::s3:GetBucket*',
    'Action::s3:List*',
    'Action::s3:DeleteObject*',
    'Action::s3:Abort*',
    // The asset bucket's ARN holds the partition, account and region: literal where the stack is bound to them.
    `Resource::arn:${known(stack.partition, '<AWS::Partition>')}:s3:::cdk-${qualifier}-assets-${known(stack.account, '<AWS::AccountId>')}-${known(stack.region, '<AWS::Region>')}/*`,
    `Resource::<${catalogueBucket}.Arn>/*`,
  ]) {
    acknowledge(provider, `AwsSolutions-IAM5[${finding}]`, syncReason);
  }
  acknowledge(provider, 'AwsSolutions-L1', 'The runtime of aws-cdk-lib\'s BucketDeployment provider is chosen by the library and not configurable; it runs only during deployments.');
}

/** The distribution: what a public, read-only service chooses not to have, and what the defaults make. */
function acknowledgeEdge(stack: AcknowledgedStack, distribution: IConstruct): void {
  acknowledge(
    distribution,
    'AwsSolutions-CFR1',
    'A public verification service answers whoever holds a reference, wherever they scan it: no country is refused. A deployment that must restrict countries adds a geo restriction or a WAF geo match rule.',
  );
  if (stack.settings.wafRateLimit === null) {
    acknowledge(
      distribution,
      'AwsSolutions-CFR2',
      'The per-client rate limit is a WAF web ACL with a fixed monthly cost, created with context wafRateLimit=N (docs/deploy.md#capacity-per-route); without it the method throttles and the receivers\' reserved concurrency bound what a flood can take.',
    );
  }
  if (!stack.settings.verificationDomain && !stack.settings.generalDomain) {
    acknowledge(
      distribution,
      'AwsSolutions-CFR4',
      'Without custom domains the distribution answers on its own *.cloudfront.net name, whose certificate and viewer TLS policy CloudFront manages (not configurable); with context verificationDomain/generalDomain the distribution takes its own certificate and requires TLSv1.2_2021.',
    );
  }
}

/**
 * Every cdk-nag (AwsSolutions) finding this stack accepts, on the narrowest construct, with the
 * reason. Anything not listed here fails `cdk synth` and the infrastructure tests.
 */
export function acknowledgeFindings(stack: AcknowledgedStack): void {
  acknowledgeBucketDeploymentProvider(stack);
  for (const fn of stack.functions.byOperationId.values()) acknowledge(fn, 'AwsSolutions-L1', LAMBDA_RUNTIME_REASON);
  acknowledge(stack.sequencer.function, 'AwsSolutions-L1', LAMBDA_RUNTIME_REASON);
  if (stack.sequencer.parts) acknowledge(stack.sequencer.parts.function, 'AwsSolutions-L1', LAMBDA_RUNTIME_REASON);
  for (const { verifierKey } of stack.ledgerKeys.generations) acknowledge(verifierKey.function, 'AwsSolutions-L1', LAMBDA_RUNTIME_REASON);
  acknowledge(
    stack.sequencer.role,
    'AwsSolutions-IAM5[Resource::*]',
    'dynamodb:ListStreams, which the stream event source mapping needs (granted by aws-cdk-lib\'s DynamoEventSource), does not support resource-level permissions; ' +
      'reading a stream\'s records (DescribeStream, GetShardIterator, GetRecords) is granted on the record table\'s stream ARN only.',
  );

  // The ledger's tile log: objects under one key prefix whose names grow with the log (tile/<L>/<N>[.p/<W>]), so no fixed list can name them.
  const catalogueBucket = stack.resolve(stack.getLogicalId(stack.catalogue.bucket.node.defaultChild as CfnResource)) as string;
  const tileFinding = `AwsSolutions-IAM5[Resource::<${catalogueBucket}.Arn>/${LEDGER_LOG.keyPrefix}*]`;
  acknowledge(
    stack.catalogue.apiReadRole,
    tileFinding,
    'API Gateway serves the ledger tile log (checkpoint, tiles, entry bundles) straight from the bucket; the log grows, so its objects are named by prefix. GetObject only, below that prefix only.',
  );
  acknowledge(
    stack.sequencer.role,
    tileFinding,
    'The sequencer writes the ledger tile log as it grows (new tiles, bundles and checkpoints) and reads back the last partial entry bundle; GetObject and PutObject below that prefix only.',
  );
  if (stack.sequencer.parts) {
    for (const folder of ['', 'logs/*/']) {
      acknowledge(
        stack.sequencer.parts.role,
        `AwsSolutions-IAM5[Resource::<${catalogueBucket}.Arn>/${LEDGER_LOG.keyPrefix}${folder}tile/*]`,
        'The part writers store the tile log\'s new tiles and entry bundles of a batch (tile/<L>/<N>, tile/entries/<N>, of the first log and of a successor below logs/<id>/), named by the log\'s growth; PutObject only, never the checkpoint.',
      );
    }
  }
  acknowledge(
    stack.loader.role,
    tileFinding,
    'The loader writes the ledger tile log as it grows (new tiles, bundles and checkpoints) and reads back the last partial entry bundle; GetObject and PutObject below that prefix only.',
  );
  acknowledge(
    stack.ingress.secret,
    'AwsSolutions-SMG4',
    'The receivers\' verification keys are issued by each event source (its whsec_ secret or whpk_ public key); rotating them is done with the source ' +
      '(both keys listed while senders sign with both, Standard Webhooks multi-signature), not by a Secrets Manager rotation function that cannot reach the source.',
  );

  const api = stack.publicApi.api;
  acknowledge(
    api,
    'AwsSolutions-APIG2',
    'Every parameter is validated by its function against the contract table\'s schemas and refused as RFC 9457 problem details naming the parameter; ' +
      'API Gateway\'s request validator would answer in another shape and split the validation rules in two places.',
  );
  acknowledge(
    api,
    'AwsSolutions-APIG3',
    'A public, read-only API without authentication to abuse: stage and method throttles bound the request rate at the API, and the per-client rate limit is a WAF web ACL on the distribution in front of it (context wafRateLimit), not on the stage.',
  );
  if (stack.edge) acknowledgeEdge(stack, stack.edge.distribution);
  if (!stack.publicApi.accessLogs) {
    acknowledge(
      api.deploymentStage,
      'AwsSolutions-APIG1',
      'Behind the distribution CloudFront\'s standard logs record every request, hit or miss (the access log bucket, cloudfront/), and the functions log every refusal and failure with its correlation id; ' +
        'the stage\'s own access log would be a second record of the misses and most of what an origin read costs in logs. Context apiAccessLog=true writes it too (docs/deploy.md#logs).',
    );
  }

  const cloudWatchRole = api.node.tryFindChild('CloudWatchRole');
  if (cloudWatchRole) {
    acknowledge(
      cloudWatchRole,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'The account-level API Gateway logging role uses the managed policy AWS documents for it; access and execution logs need it.',
    );
  }
}
