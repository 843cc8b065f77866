import { rmSync } from 'node:fs';
import path from 'node:path';
import { DOCUMENT_CACHE_CONTROL } from '../../../lib/local/documents';
import { createApp } from '../../../lib/stack/app';
import { documentKeys, fixtureSite, logicalIdOf, SKIP_BUNDLING } from '../support';
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
    const byType = Object.fromEntries(deployments.map((d) => [d.SystemMetadata['content-type'], d]));
    expect(Object.keys(byType).sort()).toEqual(['application/json', 'image/svg+xml', 'text/css; charset=utf-8', 'text/html; charset=utf-8', 'text/javascript; charset=utf-8', 'text/plain; charset=utf-8']);
    expect(byType['text/javascript; charset=utf-8']).toMatchObject({ Include: ['*.js'], Exclude: ['*'] });
    expect(byType['application/json']).toMatchObject({ Include: ['*.json'], Exclude: ['*'], DestinationBucketName: { Ref: bucketId } });
    expect(byType['text/html; charset=utf-8']).toMatchObject({ Include: ['*.html'], Exclude: ['*'] });
    for (const d of deployments) expect(d.SystemMetadata['cache-control']).toBe(DOCUMENT_CACHE_CONTROL);
  });

  test('synth refuses a build that lacks a document the contract serves', () => {
    if (documentKeys.length === 0) return;
    const incomplete = fixtureSite();
    rmSync(path.join(incomplete, documentKeys[0]));
    expect(() => createApp({ context: SKIP_BUNDLING }, { siteDir: incomplete })).toThrow(documentKeys[0]);
  });
});
