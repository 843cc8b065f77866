import { LEDGER_LOG } from '../../../functions/contract/site-paths';
import { grantsOf, logicalIdOf, synthesize } from '../support';
import { bucketId, ofType, resources, stack, synthesized } from './template';

/** lib/stack/loader-access.ts: the role the loader signs in as. */

describe('the loader role', () => {
  test('the loader may write and read the tile log below its prefix, and write the published examples, nothing else of the bucket; the deployments never prune the log', () => {
    const loaderGrants = grantsOf(resources, logicalIdOf(stack, stack.loader.role)).filter((g) => JSON.stringify(g.resource).includes(bucketId));
    const objectArn = (key: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, `/${key}`]] });
    expect(loaderGrants.map((g) => ({ action: g.action, resource: g.resource, effect: g.effect }))).toEqual([
      { action: 's3:GetObject', resource: objectArn(`${LEDGER_LOG.keyPrefix}*`), effect: 'Allow' },
      { action: 's3:PutObject', resource: objectArn(`${LEDGER_LOG.keyPrefix}*`), effect: 'Allow' },
      // What a completed load publishes (lib/publish/loaded-examples.ts): that key only, written, never read.
      { action: 's3:PutObject', resource: objectArn('developers/sandbox/examples.json'), effect: 'Allow' },
    ]);
    expect(stack.loader.role.node.tryFindChild('DefaultPolicy')).toBeDefined();
    for (const g of loaderGrants) expect(g.condition).toBeUndefined();
    // Each deployment syncs (and prunes) only its own extensions; no tile log key ends in one.
    const deployments = ofType('Custom::CDKBucketDeployment');
    expect(deployments.length).toBeGreaterThan(0);
    const tileKeys = ['checkpoint', 'checkpoints/34', 'tile/0/000', 'tile/0/x001/000.p/34', 'tile/entries/000.p/7', 'tile/1/000.p/1'].map((k) => `${LEDGER_LOG.keyPrefix}${k}`);
    for (const [, d] of deployments) {
      // The templates of what a load publishes: a deployment that never prunes (it only copies its own files).
      if (d.Properties.Prune === false) continue;
      expect(d.Properties.Exclude).toEqual(['*']);
      for (const pattern of d.Properties.Include as string[]) {
        const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
        for (const key of tileKeys) expect([pattern, key, re.test(key)]).toEqual([pattern, key, false]);
      }
    }
  });
});

describe('who may assume the loader role', () => {
  const trustOf = (context: Record<string, unknown>) => {
    const s = synthesized(context);
    return s.json.Resources[logicalIdOf(s.stack, s.stack.loader.role)].Properties.AssumeRolePolicyDocument.Statement;
  };

  test('by default: the account\'s principals allowed by their own policies, only signed in with MFA', () => {
    expect(trustOf({})).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] } },
        Condition: { Bool: { 'aws:MultiFactorAuthPresent': 'true' } },
      },
    ]);
  });

  test('loaderPrincipalArn: that principal only (MFA kept unless loaderMfa=false)', () => {
    const arn = 'arn:aws:iam::111122223333:role/records-loader';
    expect(trustOf({ loaderPrincipalArn: arn })).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { AWS: arn }, Condition: { Bool: { 'aws:MultiFactorAuthPresent': 'true' } } },
    ]);
    expect(trustOf({ loaderPrincipalArn: arn, loaderMfa: 'false' })).toEqual([{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { AWS: arn } }]);
    for (const bad of ['arn:aws:iam::111122223333:root', '111122223333', 'arn:aws:iam::1:role/x']) {
      expect(() => synthesize({ loaderPrincipalArn: bad })).toThrow('loaderPrincipalArn');
    }
  });
});
