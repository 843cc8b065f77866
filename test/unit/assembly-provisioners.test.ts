import type { CfnTemplate } from '../../lib/assembly/cloud-assembly';
import { Closers } from '../../lib/assembly/closers';
import { IntrinsicResolver } from '../../lib/assembly/intrinsics';
import { describeNotEmulated, unprovisionedResources } from '../../lib/assembly/not-emulated';
import { DEFAULT_ACCOUNT, physicalResources } from '../../lib/assembly/physical-names';
import { PROVISIONERS } from '../../lib/assembly/runner';

/**
 * How the assembly runner is composed (lib/assembly/runner.ts): one provisioner per resource type,
 * run in the order listed; every resource whose type none of them takes is named, with why it needs
 * nothing locally; what they started is closed in the reverse order. The whole runner on the real
 * synthesized stack is test/e2e/assembly.test.ts.
 */

const account = { account: DEFAULT_ACCOUNT, region: 'eu-central-1', partition: 'aws', urlSuffix: 'amazonaws.com', stackName: 'Stack' };
const resolverOf = (template: CfnTemplate) => new IntrinsicResolver(template, account, physicalResources(template, account, (name) => `http://sqs.local/${name}`));

test('each resource type is taken by one provisioner at most', () => {
  const types = PROVISIONERS.flatMap((p) => p.types);
  expect(types.length).toBeGreaterThan(15);
  expect(types.filter((type, i) => types.indexOf(type) !== i)).toEqual([]);
});

test('the REST API is served before the bucket deployments (which name its URL), and the demo is loaded before the triggers deliver anything', () => {
  const position = (type: string) => PROVISIONERS.findIndex((p) => p.types.includes(type));
  const demo = PROVISIONERS.findIndex((p) => p.types.length === 0);
  expect(position('AWS::Lambda::Function')).toBeLessThan(position('AWS::ApiGateway::RestApi'));
  expect(position('AWS::ApiGateway::RestApi')).toBeLessThan(position('Custom::CDKBucketDeployment'));
  expect(demo).toBeGreaterThan(position('Custom::CDKBucketDeployment'));
  expect(demo).toBeLessThan(position('AWS::Lambda::EventSourceMapping'));
  expect(demo).toBeLessThan(position('AWS::Events::Rule'));
});

test('the distribution is served after the REST API (its origin) and before the bucket deployments (which name its URL) and any invocation', () => {
  const position = (type: string) => PROVISIONERS.findIndex((p) => p.types.includes(type));
  expect(position('AWS::CloudFront::Distribution')).toBeGreaterThan(position('AWS::ApiGateway::RestApi'));
  expect(position('AWS::CloudFront::Distribution')).toBeLessThan(position('Custom::CDKBucketDeployment'));
  expect(position('AWS::CloudFront::Distribution')).toBeLessThan(position('AWS::Lambda::EventSourceMapping'));
});

test('a resource no provisioner takes is named with why it needs nothing here; one whose condition does not hold is not named at all', () => {
  const template: CfnTemplate = {
    Conditions: { Never: { 'Fn::Equals': ['a', 'b'] } },
    Resources: {
      Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
      Logs: { Type: 'AWS::Logs::LogGroup', Properties: {} },
      Topic: { Type: 'AWS::SNS::Topic', Properties: {} },
      Distribution: { Type: 'AWS::Example::Unknown', Properties: {} },
      Skipped: { Type: 'AWS::Example::Unknown', Condition: 'Never', Properties: {} },
    },
  };
  const named = unprovisionedResources(template, resolverOf(template), PROVISIONERS.flatMap((p) => p.types));
  expect(named).toEqual([
    { type: 'AWS::Logs::LogGroup', logicalId: 'Logs', reason: expect.stringContaining('log lines are printed here') },
    { type: 'AWS::SNS::Topic', logicalId: 'Topic', reason: 'notifications are not emulated' },
    { type: 'AWS::Example::Unknown', logicalId: 'Distribution', reason: 'not emulated' },
  ]);
  expect(describeNotEmulated(named)).toEqual([
    "AWS::Logs::LogGroup: log lines are printed here instead, with the function's name (Logs)",
    'AWS::SNS::Topic: notifications are not emulated (Topic)',
    'AWS::Example::Unknown: not emulated (Distribution)',
  ]);
});

test('what was started is closed in the reverse order, once', async () => {
  const closed: string[] = [];
  const closers = new Closers();
  for (const name of ['store', 'endpoint', 'function']) closers.add(() => void closed.push(name));
  await closers.close();
  await closers.close();
  expect(closed).toEqual(['function', 'endpoint', 'store']);
});
