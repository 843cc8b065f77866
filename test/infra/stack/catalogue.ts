import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copiedBySync } from '../../../lib/assembly/bucket-deployments';
import { DOCUMENT_CACHE_CONTROL, filesBelow } from '../../../lib/local/documents';
import { createApp } from '../../../lib/stack/app';
import { documentKeys, fixtureSite, logicalIdOf, SKIP_BUNDLING, synthesize } from '../support';
import { bucketId, ofType, resources, stack } from './template';

/** lib/stack/catalogue.ts: the bucket of published documents and the ledger's tile log. */

describe('catalogue bucket', () => {
  const bucket = resources[bucketId];

  test('private, versioned, encrypted, with server access logs; retained', () => {
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: logicalIdOf(stack, stack.catalogue.accessLogBucket) } },
    });
    expect(bucket.DeletionPolicy).toBe('Retain');
  });

  test('TLS only: the bucket policy denies every request without secure transport', () => {
    const policies = ofType('AWS::S3::BucketPolicy').filter(([, p]) => p.Properties.Bucket.Ref === bucketId);
    expect(policies).toHaveLength(1);
    expect(policies[0][1].Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    // Nothing in the policy opens the bucket: its only Allow statements name no public principal.
    for (const s of policies[0][1].Properties.PolicyDocument.Statement) {
      if (s.Effect === 'Allow') expect(JSON.stringify(s.Principal)).not.toContain('"*"');
    }
  });

  test('the access log bucket is private and TLS only too', () => {
    const logs = resources[logicalIdOf(stack, stack.catalogue.accessLogBucket)];
    expect(logs.Properties.PublicAccessBlockConfiguration).toMatchObject({ BlockPublicAcls: true, RestrictPublicBuckets: true });
    const policy = ofType('AWS::S3::BucketPolicy').find(([, p]) => p.Properties.Bucket.Ref === logicalIdOf(stack, stack.catalogue.accessLogBucket));
    expect(JSON.stringify(policy)).toContain('aws:SecureTransport');
  });

  test('the build output is deployed per media type with its Content-Type and the documents cache policy', () => {
    const deployments = ofType('Custom::CDKBucketDeployment').map(([, d]) => d.Properties);
    const syncs = deployments.filter((d) => d.Exclude !== undefined);
    const byType = Object.fromEntries(syncs.map((d) => [d.SystemMetadata['content-type'], d]));
    expect(Object.keys(byType).sort()).toEqual(['application/json', 'image/svg+xml', 'text/css; charset=utf-8', 'text/html; charset=utf-8', 'text/javascript; charset=utf-8', 'text/plain; charset=utf-8']);
    expect(byType['text/javascript; charset=utf-8']).toMatchObject({ Include: ['*.js'], Exclude: ['*'] });
    // The JSON files by name: a `*.json` include would copy and prune the key a load publishes.
    const jsonKeys = filesBelow(fixtureSite()).filter((key) => key.endsWith('.json') && !stack.catalogue.loadedKeys.includes(key));
    expect(byType['application/json']).toMatchObject({ Include: jsonKeys.sort(), Exclude: ['*'], DestinationBucketName: { Ref: bucketId } });
    expect(byType['text/html; charset=utf-8']).toMatchObject({ Include: ['*.html'], Exclude: ['*'] });
    for (const d of deployments) expect(d.SystemMetadata['cache-control']).toBe(DOCUMENT_CACHE_CONTROL);
  });

  test('the keys a load publishes: their templates deployed when the stack is created, never synced or pruned by a later deploy', () => {
    expect(stack.catalogue.loadedKeys).toEqual(['developers/sandbox/examples.json']);
    const deployments = ofType('Custom::CDKBucketDeployment').map(([, d]) => d.Properties);
    const [templates, ...others] = [deployments.filter((d) => d.Exclude === undefined), deployments.filter((d) => d.Exclude !== undefined)];
    expect(templates).toHaveLength(1);
    expect(templates[0]).toMatchObject({ Prune: false, DestinationBucketName: { Ref: bucketId } });
    expect(templates[0].SystemMetadata['content-type']).toBe('application/json');
    // No other deployment's `aws s3 sync --delete` takes the key: neither copied nor pruned, whatever is deployed later.
    for (const d of others.flat()) for (const key of stack.catalogue.loadedKeys) expect([d.Include, copiedBySync(key, d.Exclude, d.Include)]).toEqual([d.Include, false]);
    // Its source's hash is fixed: a build with other templates changes none of its properties, so CloudFormation never updates it.
    const changed = mkdtempSync(path.join(os.tmpdir(), 'site-'));
    cpSync(fixtureSite(), changed, { recursive: true });
    writeFileSync(path.join(changed, 'developers/sandbox/examples.json'), '{"changed":true}');
    const again = synthesize({}, changed);
    const templatesOf = (r: typeof resources) => Object.values(r).find((d) => d.Type === 'Custom::CDKBucketDeployment' && d.Properties.Exclude === undefined)!.Properties;
    expect(templatesOf(again.json.Resources)).toEqual(templatesOf(resources));
    const jsonSync = (r: typeof resources) => Object.values(r).find((d) => d.Type === 'Custom::CDKBucketDeployment' && d.Properties.SystemMetadata['content-type'] === 'application/json' && d.Properties.Exclude)!.Properties;
    // The other documents' deployment does change with the build (a sanity check of the comparison).
    writeFileSync(path.join(changed, 'developers/extra.json'), '{"changed":true}');
    expect(jsonSync(synthesize({}, changed).json.Resources).SourceObjectKeys).not.toEqual(jsonSync(resources).SourceObjectKeys);
  });

  test('synth refuses a build that lacks a document the contract serves', () => {
    if (documentKeys.length === 0) return;
    const incomplete = fixtureSite();
    rmSync(path.join(incomplete, documentKeys[0]));
    expect(() => createApp({ context: SKIP_BUNDLING }, { siteDir: incomplete })).toThrow(documentKeys[0]);
  });
});
