import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { filterCriteriaMatch } from '../../lib/assembly/filter-pattern';
import path from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { operations } from '../../functions/contract/operations';
import { PENDING_PK_PREFIX } from '../../functions/store/layout';
import { PENDING_INDEX, TABLE_KEYS } from '../../functions/store/write';
import { DOCUMENT_CACHE_CONTROL } from '../../lib/local/documents';
import { createApp } from '../../lib/stack/app';
import { NODE_MAJOR, nodeOptionsFor } from '../../lib/stack/bundling';
import { lambdaOperations } from '../../lib/stack/operation-functions';
import { CORS_RESPONSE_HEADERS, preflightHeaders } from '../../functions/http/cors';
import { lintImportDocument } from '../../lib/contract/apigateway-rules';
import { DOCUMENT_TIMEOUT_MS, gatewayPath } from '../../lib/contract/import-document';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import { ACCESS_LOG_FIELDS } from '../../lib/stack/public-api';
import { SEQUENCER_ENTRY, SEQUENCER_TIMEOUT_SECONDS } from '../../lib/stack/sequencer';
import { DEFAULT_SETTINGS } from '../../lib/stack/settings';
import { documentKeys, fixtureSite, grantsOf, logicalIdOf, referencedIds, SKIP_BUNDLING, synthesize, type CfnResourceJson } from './support';

const lambdaOps = lambdaOperations(operations);
const { stack, json } = synthesize();
const resources = json.Resources;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

const tableId = logicalIdOf(stack, stack.records.table);
const bucketId = logicalIdOf(stack, stack.catalogue.bucket);
const ledgerKeyId = logicalIdOf(stack, stack.ledgerKey.key);
const loaderRoleId = logicalIdOf(stack, stack.loader.role);
const sequencerId = logicalIdOf(stack, stack.sequencer.function);
const sequencerRoleId = logicalIdOf(stack, stack.sequencer.role);
const deadLettersId = logicalIdOf(stack, stack.sequencer.deadLetterQueue);
const ingressSecretId = logicalIdOf(stack, stack.ingress.secret);
const receivers = lambdaOps.filter((op) => op.integration.access === 'ingress-write');
const PENDING_ONLY = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['P#*'] } };
const RECORDS_ONLY = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['R#*'] } };

const apiIdOf = (s: typeof stack) => logicalIdOf(s, s.publicApi.api);

function functionOf(operationId: string): { id: string; resource: CfnResourceJson; roleId: string } {
  const fn = stack.functions.byOperationId.get(operationId);
  if (!fn) throw new Error(`no function for ${operationId}`);
  const id = logicalIdOf(stack, fn);
  const resource = resources[id];
  return { id, resource, roleId: resource.Properties.Role['Fn::GetAtt'][0] };
}

/** Variables that would point a function at a resource or at the ledger. */
const RESOURCE_VARIABLES = ['TABLE_NAME', 'CATALOGUE_BUCKET', 'LEDGER_VERIFIER_KEYS', 'DYNAMODB_ENDPOINT'];
const READ_ACTIONS = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 's3:GetObject'];
const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];

describe('functions: one per Lambda operation of the contract table', () => {
  test('the table has Lambda operations, and each has exactly one function', () => {
    expect(lambdaOps.length).toBeGreaterThan(0);
    expect([...stack.functions.byOperationId.keys()].sort()).toEqual(lambdaOps.map((op) => op.operationId).sort());
    // Besides them, the sequencer is the stack's only Node.js function.
    const nodeFunctions = ofType('AWS::Lambda::Function').filter(([, r]) => String(r.Properties.Runtime).startsWith('nodejs'));
    expect(nodeFunctions).toHaveLength(lambdaOps.length + 1);
    expect(nodeFunctions.map(([id]) => id)).toContain(sequencerId);
  });

  test.each(lambdaOps.map((op) => op.operationId))('%s: Node.js on arm64, the Powertools Logger\'s settings (no Lambda log level), retained logs', (operationId) => {
    const { resource } = functionOf(operationId);
    const p = resource.Properties;
    expect(p.Runtime).toBe(`nodejs${NODE_MAJOR}.x`);
    expect(p.Architectures).toEqual(['arm64']);
    expect(p.Handler).toBe('index.handler');
    expect(p.Timeout).toBeLessThan(29);
    // Lambda filters nothing: a sampled invocation's or a 5xx's debug lines reach the log (lib/stack/logging.ts).
    expect(p.LoggingConfig).toEqual({ LogFormat: 'Text', LogGroup: expect.anything() });
    const env = p.Environment.Variables;
    expect(env).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'public-trust-verification-service',
      POWERTOOLS_LOG_LEVEL: DEFAULT_SETTINGS.logLevel,
    });
    // No sampling unless a deployment asks for it (context logSampleRate).
    expect(env).not.toHaveProperty('POWERTOOLS_LOGGER_SAMPLE_RATE');
    // Source-mapped stack traces cost every cold start a parse of the map: DEBUG deployments only.
    expect(env.NODE_OPTIONS).toBe(nodeOptionsFor(DEFAULT_SETTINGS.logLevel));
    // The SDK v2 variable does nothing for SDK v3 (which keeps connections alive itself).
    expect(env).not.toHaveProperty('AWS_NODEJS_CONNECTION_REUSE_ENABLED');
    const logGroupId = p.LoggingConfig.LogGroup.Ref;
    expect(resources[logGroupId].Type).toBe('AWS::Logs::LogGroup');
    expect(resources[logGroupId].Properties.RetentionInDays).toBe(DEFAULT_SETTINGS.logRetentionDays);
  });

  test('every log group of the stack has a retention', () => {
    const groups = ofType('AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThanOrEqual(lambdaOps.length + 2);
    for (const [, group] of groups) expect(group.Properties.RetentionInDays).toEqual(expect.any(Number));
  });
});

describe('grants: each function reaches exactly what its access names', () => {
  test.each(lambdaOps.map((op) => [op.operationId, op.integration.access] as const))('%s (%s)', (operationId, access) => {
    const { id, resource, roleId } = functionOf(operationId);
    const env = resource.Properties.Environment.Variables as Record<string, unknown>;
    const grants = grantsOf(resources, roleId);
    expect(resources[roleId].Properties.ManagedPolicyArns).toBeUndefined();
    expect(grants.every((g) => g.effect === 'Allow')).toBe(true);

    // Its own log group, and nothing else of the logs service.
    const logGroupId = resource.Properties.LoggingConfig.LogGroup.Ref;
    for (const g of grants.filter((g) => g.action.startsWith('logs:'))) {
      expect(LOG_ACTIONS).toContain(g.action);
      expect(referencedIds(g.resource)).toEqual([logGroupId]);
    }
    const resourceGrants = grants.filter((g) => !g.action.startsWith('logs:'));
    // Read-only whatever the access (the receivers aside, below): no write, delete, scan or admin action anywhere.
    if (access !== 'ingress-write') for (const g of resourceGrants) expect(READ_ACTIONS).toContain(g.action);

    if (access === 'ingress-write') {
      // A receiver writes (and reads back) pending-event items only, reads record partitions only, and reads its keys.
      const table = resourceGrants.filter((g) => g.action.startsWith('dynamodb:'));
      expect(table.map((g) => [g.action, g.condition]).sort()).toEqual(
        [
          ['dynamodb:GetItem', PENDING_ONLY],
          ['dynamodb:PutItem', PENDING_ONLY],
          ['dynamodb:Query', RECORDS_ONLY],
        ].sort(),
      );
      for (const g of table) expect(g.resource).toEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
      const secrets = resourceGrants.filter((g) => g.action.startsWith('secretsmanager:'));
      expect(secrets.map((g) => g.action).sort()).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
      for (const g of secrets) expect(referencedIds(g.resource)).toEqual([ingressSecretId]);
      expect(resourceGrants).toHaveLength(table.length + secrets.length);
      expect(env.TABLE_NAME).toEqual({ Ref: tableId });
      expect(env.INGRESS_SECRETS_ARN).toEqual({ Ref: ingressSecretId });
      // The development keys file is the local host's alone: never configured in a deployment.
      for (const name of ['INGRESS_SECRETS_FILE', 'LEDGER_VERIFIER_KEYS', 'CATALOGUE_BUCKET']) expect(env).not.toHaveProperty(name);
    } else if (access === 'table-read') {
      expect(resourceGrants.map((g) => g.action).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
      for (const g of resourceGrants) expect(g.resource).toEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
      expect(env.TABLE_NAME).toEqual({ Ref: tableId });
      expect(env).toHaveProperty('LEDGER_VERIFIER_KEYS', DEFAULT_SETTINGS.ledgerVerifierKeys);
      expect(env).not.toHaveProperty('CATALOGUE_BUCKET');
    } else if (access === 'bucket-read') {
      expect(resourceGrants.map((g) => g.action)).toEqual(['s3:GetObject']);
      expect(referencedIds(resourceGrants[0].resource)).toEqual([bucketId]);
      expect(env.CATALOGUE_BUCKET).toEqual({ Ref: bucketId });
      for (const name of ['TABLE_NAME', 'LEDGER_VERIFIER_KEYS']) expect(env).not.toHaveProperty(name);
    } else {
      // Sandbox and other self-contained operations: no grant, and no resource even named to them.
      expect(resourceGrants).toEqual([]);
      for (const name of RESOURCE_VARIABLES) expect(env).not.toHaveProperty(name);
      // Literal values only, but the public origin, which is the distribution's domain (no resource of the function's).
      const { PUBLIC_BASE_URL: publicBaseUrl, ...others } = env;
      for (const value of Object.values(others)) expect(typeof value).toBe('string');
      expect(referencedIds(publicBaseUrl)).toEqual([logicalIdOf(stack, stack.edge!.distribution)]);
    }
    expect(id).toBeTruthy();
  });

  test('sandbox operations are integrated with functions that have no access at all', () => {
    for (const op of lambdaOps.filter((o) => o.path.startsWith('/developers/sandbox/'))) {
      expect(op.integration.access).toBe('none');
    }
  });

  test('no role but the two ledger writers (the loader and the sequencer) may write the table; the receivers may put pending-event items only', () => {
    const receiverRoles = new Set(receivers.map((op) => functionOf(op.operationId).roleId));
    expect(receiverRoles.size).toBe(2);
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const writes = grantsOf(resources, roleId).filter(
        (g) => g.action.startsWith('dynamodb:') && !['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:DescribeTable'].includes(g.action),
      );
      const streamReads = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];
      if (roleId === loaderRoleId) expect(writes.map((g) => g.action).sort()).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
      else if (roleId === sequencerRoleId) {
        expect(writes.filter((g) => !streamReads.includes(g.action)).map((g) => g.action).sort()).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
      } else if (receiverRoles.has(roleId)) expect(writes.map((g) => [g.action, g.condition])).toEqual([['dynamodb:PutItem', PENDING_ONLY]]);
      else expect(writes).toEqual([]);
    }
  });

  test('the leading-key condition names the prefix the store writes pending events under', () => {
    const { PENDING_PK_PREFIX, pendingPk, RECORD_PK_PREFIX, recordPk } = jest.requireActual('../../functions/store/layout');
    expect(pendingPk('service-platform', 'msg_1').startsWith(PENDING_PK_PREFIX)).toBe(true);
    expect(PENDING_ONLY['ForAllValues:StringLike']['dynamodb:LeadingKeys']).toEqual([`${PENDING_PK_PREFIX}*`]);
    expect(recordPk('ORD-1').startsWith(RECORD_PK_PREFIX)).toBe(true);
    // No other partition family starts with the pending prefix (records, ledger, table metadata).
    for (const pk of [recordPk('P#x'), 'L#LOG', 'S#TABLE']) expect(pk.startsWith(PENDING_PK_PREFIX)).toBe(false);
  });
});

describe('record table', () => {
  test('pk/sk strings, pay-per-request, point-in-time recovery, deletion protection, retained', () => {
    const [, table] = ofType('AWS::DynamoDB::Table')[0];
    expect(ofType('AWS::DynamoDB::Table')).toHaveLength(1);
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: expect.arrayContaining([
        { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
        { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
      ]),
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
  });

  test('a development stack can turn deletion protection off (context deletionProtection=false)', () => {
    const dev = synthesize({ deletionProtection: 'false' });
    dev.template.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } });
  });
});

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

describe('ledger checkpoint key (AWS KMS)', () => {
  const key = resources[ledgerKeyId];
  const kmsGrants = (roleId: string) => grantsOf(resources, roleId).filter((g) => g.action.startsWith('kms:'));

  test('an Ed25519 sign-only key, retained, with an alias', () => {
    expect(ofType('AWS::KMS::Key')).toHaveLength(1);
    expect(key.Properties).toMatchObject({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY' });
    expect(key.Properties.Description).toEqual(expect.any(String));
    // Asymmetric keys cannot rotate (a rotation is a new key and a new published verifier key).
    expect(key.Properties.EnableKeyRotation).toBeUndefined();
    expect(key.DeletionPolicy).toBe('Retain');
    expect(key.UpdateReplacePolicy).toBe('Retain');
    const aliases = ofType('AWS::KMS::Alias');
    expect(aliases).toHaveLength(1);
    expect(aliases[0][1].Properties.TargetKeyId).toEqual({ 'Fn::GetAtt': [ledgerKeyId, 'Arn'] });
    expect(aliases[0][1].Properties.AliasName).toMatch(/^alias\/[A-Za-z0-9/_-]+$/);
  });

  test('the sequencer and the loader may only sign and read the public key, on this key, and nothing else of KMS', () => {
    for (const roleId of [sequencerRoleId, loaderRoleId]) {
      expect(kmsGrants(roleId).map((g) => [g.action, g.resource]).sort()).toEqual([
        ['kms:GetPublicKey', { 'Fn::GetAtt': [ledgerKeyId, 'Arn'] }],
        ['kms:Sign', { 'Fn::GetAtt': [ledgerKeyId, 'Arn'] }],
      ]);
    }
  });

  test('no other role, no function of an operation, can use any KMS key, nor is the key named to one', () => {
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      if (roleId === sequencerRoleId || roleId === loaderRoleId) continue;
      expect([roleId, kmsGrants(roleId)]).toEqual([roleId, []]);
      expect([roleId, grantsOf(resources, roleId).filter((g) => referencedIds(g.resource).includes(ledgerKeyId))]).toEqual([roleId, []]);
    }
    for (const op of lambdaOps) expect(referencedIds(functionOf(op.operationId).resource.Properties.Environment)).not.toContain(ledgerKeyId);
  });

  test('the key policy refuses kms:Sign to every principal but the two writers', () => {
    const statements = key.Properties.KeyPolicy.Statement as any[];
    const deny = statements.filter((s) => s.Effect === 'Deny');
    expect(deny).toEqual([
      {
        Sid: 'OnlyTheLedgerWritersSign',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'kms:Sign',
        Resource: '*',
        Condition: { ArnNotEquals: { 'aws:PrincipalArn': [{ 'Fn::GetAtt': [sequencerRoleId, 'Arn'] }, { 'Fn::GetAtt': [loaderRoleId, 'Arn'] }] } },
      },
    ]);
    // Its only Allow is the account's own (what lets IAM policies grant the key at all); nothing names another account or everyone.
    for (const s of statements.filter((s) => s.Effect === 'Allow')) {
      expect(JSON.stringify(s.Principal)).toMatch(/:root"\]\]\}\}$/);
      expect(JSON.stringify(s.Principal)).toContain('{"Ref":"AWS::AccountId"}');
    }
  });

  test('no secret holds a signing key any more: the only secret is the receivers\' keys', () => {
    expect(ofType('AWS::SecretsManager::Secret').map(([id]) => id)).toEqual([ingressSecretId]);
  });

  test('the loader role, table, API and key are stack outputs', () => {
    expect(json.Outputs.LoaderRoleArn.Value).toEqual({ 'Fn::GetAtt': [loaderRoleId, 'Arn'] });
    expect(json.Outputs.TableName.Value).toEqual({ Ref: tableId });
    expect(json.Outputs.LedgerKeyArn.Value).toEqual({ 'Fn::GetAtt': [ledgerKeyId, 'Arn'] });
    expect(json.Outputs.LedgerSigningKeySecretArn).toBeUndefined();
    expect(json.Outputs.SequencerDeadLetterQueueUrl.Value).toEqual({ Ref: deadLettersId });
    expect(json.Outputs.ApiUrl).toBeDefined();
  });
});

describe('the sequencer', () => {
  const fn = resources[sequencerId];
  const grants = grantsOf(resources, sequencerRoleId);
  const [[mappingId, mapping]] = ofType('AWS::Lambda::EventSourceMapping');

  test('bundled from its handler like the operations: Node.js on arm64, JSON logs with retention, 60 s, more memory than a reader', () => {
    expect(existsSync(path.join(__dirname, '../..', SEQUENCER_ENTRY))).toBe(true);
    expect(fn.Properties).toMatchObject({
      Runtime: `nodejs${NODE_MAJOR}.x`,
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: SEQUENCER_TIMEOUT_SECONDS,
      LoggingConfig: { LogFormat: 'Text', LogGroup: expect.anything() },
    });
    expect(fn.Properties.MemorySize).toBeGreaterThanOrEqual(resources[functionOf(lambdaOps[0].operationId).id].Properties.MemorySize);
    expect(resources[fn.Properties.LoggingConfig.LogGroup.Ref].Properties.RetentionInDays).toBe(DEFAULT_SETTINGS.logRetentionDays);
    expect(fn.Properties.Role).toEqual({ 'Fn::GetAtt': [sequencerRoleId, 'Arn'] });
    expect(resources[sequencerRoleId].Properties.ManagedPolicyArns).toBeUndefined();
  });

  test('reserved concurrency 1: never two runs at once', () => {
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(1);
  });

  test('its environment, exactly', () => {
    expect(fn.Properties.Environment.Variables).toEqual({
      POWERTOOLS_SERVICE_NAME: 'public-trust-verification-service',
      POWERTOOLS_LOG_LEVEL: DEFAULT_SETTINGS.logLevel,
      TABLE_NAME: { Ref: tableId },
      LEDGER_KMS_KEY_ARN: { 'Fn::GetAtt': [ledgerKeyId, 'Arn'] },
      LEDGER_ORIGIN: '',
      LEDGER_TILES_BUCKET: { Ref: bucketId },
      LEDGER_TILES_PREFIX: LEDGER_LOG.keyPrefix,
    });
  });

  test('what it may do: the table, the pending index, the tile log, the key, its stream, its queue and its logs; nothing else', () => {
    const table = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const byResource = (g: (typeof grants)[number]) => `${g.action} ${JSON.stringify(g.resource)}`;
    expect(grants.every((g) => g.effect === 'Allow')).toBe(true);
    expect(grants.map(byResource).sort()).toEqual(
      [
        ...['BatchGetItem', 'BatchWriteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'].map((a) => `dynamodb:${a} ${JSON.stringify(table)}`),
        `dynamodb:Query ${JSON.stringify({ 'Fn::Join': ['', [table, `/index/${PENDING_INDEX.name}`]] })}`,
        ...['s3:GetObject', 's3:PutObject'].map((a) => `${a} ${JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, `/${LEDGER_LOG.keyPrefix}*`]] })}`),
        ...['kms:GetPublicKey', 'kms:Sign'].map((a) => `${a} ${JSON.stringify({ 'Fn::GetAtt': [ledgerKeyId, 'Arn'] })}`),
        ...['DescribeStream', 'GetRecords', 'GetShardIterator'].map((a) => `dynamodb:${a} ${JSON.stringify({ 'Fn::GetAtt': [tableId, 'StreamArn'] })}`),
        // ListStreams has no resource-level permission (acknowledged in nag-acknowledgements.ts).
        'dynamodb:ListStreams "*"',
        ...['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'].map((a) => `${a} ${JSON.stringify({ 'Fn::GetAtt': [deadLettersId, 'Arn'] })}`),
        ...LOG_ACTIONS.map((a) => `${a} ${JSON.stringify({ 'Fn::GetAtt': [fn.Properties.LoggingConfig.LogGroup.Ref, 'Arn'] })}`),
      ].sort(),
    );
  });

  test('triggered by the table stream, only for INSERTs of pending deliveries, in batches, bisected, retried a bounded number of times, then to the dead-letter queue', () => {
    expect(ofType('AWS::Lambda::EventSourceMapping')).toHaveLength(1);
    expect(mapping.Properties).toMatchObject({
      FunctionName: { Ref: sequencerId },
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [deadLettersId, 'Arn'] } } },
    });
    expect(mapping.Properties.BatchSize).toBeGreaterThanOrEqual(10);
    expect(mapping.Properties.MaximumBatchingWindowInSeconds).toBeGreaterThan(0);
    expect(mapping.Properties.MaximumBatchingWindowInSeconds).toBeLessThanOrEqual(5);
    expect(mapping.Properties.MaximumRetryAttempts).toBeGreaterThanOrEqual(0);
    expect(mapping.Properties.MaximumRetryAttempts).toBeLessThanOrEqual(10);
    expect(mapping.Properties.MaximumRecordAgeInSeconds).toBeGreaterThan(0);
    const patterns = mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
    expect(patterns).toEqual([
      { eventName: ['INSERT'], dynamodb: { Keys: { [TABLE_KEYS.partitionKey]: { S: [{ prefix: PENDING_PK_PREFIX }] } }, NewImage: { queue: { S: ['PENDING'] } } } },
    ]);
    expect(mappingId).toBeTruthy();
  });

  test('the filter admits what waits for the sequencer and nothing else the writers write (Lambda filter semantics, lib/assembly/filter-pattern.ts)', () => {
    const patterns = mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => f.Pattern);
    const record = (eventName: string, pk: string, image: Record<string, unknown> = {}) => ({
      eventName,
      dynamodb: { Keys: { pk: { S: pk }, sk: { S: '#' } }, NewImage: { pk: { S: pk }, sk: { S: '#' }, ...image } },
    });
    const waiting = { queue: { S: 'PENDING' }, receivedAt: { S: '2026-11-24T00:00:00.000Z' } };
    expect(filterCriteriaMatch(patterns, record('INSERT', 'P#service-platform#event:0f3a', waiting))).toBe(true);
    for (const [eventName, pk, image] of [
      // A delivery's note (it points at the event, which is what waits), a refused delivery, an item the sequencer finished.
      ['INSERT', 'P#service-platform#msg_1', { event: { S: 'P#service-platform#event:0f3a' } }],
      ['INSERT', 'P#service-platform#msg_2', { status: { N: '422' } }],
      ['MODIFY', 'P#service-platform#event:0f3a', { sequencing: { S: 'SEQUENCED' } }],
      ['REMOVE', 'P#service-platform#event:0f3a', waiting],
      ['INSERT', 'R#ORD-2026-0001', {}],
      ['INSERT', 'L#LOG', {}],
      ['INSERT', 'S#TABLE', {}],
    ] as const) {
      expect([eventName, pk, filterCriteriaMatch(patterns, record(eventName, pk, image))]).toEqual([eventName, pk, false]);
    }
  });

  test('the table streams new images, and has the sparse pending index (keys only)', () => {
    const table = resources[tableId].Properties;
    expect(table.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    expect(table.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: PENDING_INDEX.name,
        KeySchema: [
          { AttributeName: PENDING_INDEX.partitionKey, KeyType: 'HASH' },
          { AttributeName: PENDING_INDEX.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    expect(table.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: PENDING_INDEX.partitionKey, AttributeType: 'S' },
        { AttributeName: PENDING_INDEX.sortKey, AttributeType: 'S' },
      ]),
    );
    expect(PENDING_INDEX).toEqual({ name: 'pending', partitionKey: 'queue', sortKey: 'receivedAt' });
  });

  test('every minute, an EventBridge rule invokes it (the safety net that drains the pending index)', () => {
    const rules = ofType('AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    const [[ruleId, rule]] = rules;
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    expect(rule.Properties.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [sequencerId, 'Arn'] } })]);
    const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => referencedIds(p.Properties.FunctionName).includes(sequencerId));
    expect(permissions.map(([, p]) => [p.Properties.Principal, referencedIds(p.Properties.SourceArn)])).toEqual([['events.amazonaws.com', [ruleId]]]);
  });

  test('failed scheduled runs go to the dead-letter queue, without retries (the next tick does the same work)', () => {
    expect(fn.Properties.DeadLetterConfig).toEqual({ TargetArn: { 'Fn::GetAtt': [deadLettersId, 'Arn'] } });
    const configs = ofType('AWS::Lambda::EventInvokeConfig').filter(([, c]) => c.Properties.FunctionName.Ref === sequencerId);
    expect(configs).toHaveLength(1);
    expect(configs[0][1].Properties).toMatchObject({ MaximumRetryAttempts: 0, Qualifier: '$LATEST' });
    expect(configs[0][1].Properties.MaximumEventAgeInSeconds).toBeLessThanOrEqual(3600);
  });

  test('the dead-letter queue: encrypted, TLS only, messages kept 14 days', () => {
    expect(ofType('AWS::SQS::Queue').map(([id]) => id)).toEqual([deadLettersId]);
    const queue = resources[deadLettersId];
    expect(queue.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    const policies = ofType('AWS::SQS::QueuePolicy').filter(([, p]) => referencedIds(p.Properties.Queues).includes(deadLettersId));
    expect(policies).toHaveLength(1);
    expect(policies[0][1].Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  test('no API route reaches it: no integration names it, and only EventBridge may invoke it', () => {
    const [[, api]] = ofType('AWS::ApiGateway::RestApi');
    expect(referencedIds(api.Properties.Body)).not.toContain(sequencerId);
    for (const [, permission] of ofType('AWS::Lambda::Permission')) {
      if (referencedIds(permission.Properties.FunctionName).includes(sequencerId)) expect(permission.Properties.Principal).toBe('events.amazonaws.com');
    }
    expect([...stack.functions.byOperationId.values()]).not.toContain(stack.sequencer.function);
  });

  test('the ledger origin: context ledgerOrigin, else derived from the verification origin or publicBaseUrl, else empty (nothing is signed)', () => {
    const originOf = (context: Record<string, unknown>) => {
      const s = synthesize(context);
      return [s.json.Resources[logicalIdOf(s.stack, s.stack.sequencer.function)].Properties.Environment.Variables.LEDGER_ORIGIN, s.json.Outputs.LedgerOrigin?.Value];
    };
    expect(originOf({ ledgerOrigin: 'log.example.org/ledger' })).toEqual(['log.example.org/ledger', 'log.example.org/ledger']);
    expect(originOf({ verificationOrigin: 'https://verify.example.org/base', publicBaseUrl: 'https://trust.example.org' })).toEqual(['verify.example.org/base/ledger', 'verify.example.org/base/ledger']);
    expect(originOf({ publicBaseUrl: 'https://trust.example.org/' })).toEqual(['trust.example.org/ledger', 'trust.example.org/ledger']);
    // Given, it wins over the derivation (a log keeps its origin when a domain is added later).
    expect(originOf({ ledgerOrigin: 'old.example.org/ledger', verificationOrigin: 'https://new.example.org' })[0]).toBe('old.example.org/ledger');
    expect(originOf({})).toEqual(['', undefined]);
    // Synth says what is missing (as information: a development synth needs no origin), and only then.
    const infoAbout = (context: Record<string, unknown>) =>
      Annotations.fromStack(synthesize(context).stack).findInfo('*', Match.stringLikeRegexp('ledgerOrigin')).map((m) => m.id);
    expect(infoAbout({})).toEqual(['/PublicTrustVerificationService/Sequencer']);
    expect(infoAbout({ ledgerOrigin: 'log.example.org/ledger' })).toEqual([]);
    for (const bad of ['https://trust.example.org/ledger', 'trust example/ledger', 'a+b']) {
      expect(() => synthesize({ ledgerOrigin: bad })).toThrow('ledgerOrigin');
    }
  });
});

describe('ingress verification keys', () => {
  test('one secret, created as {} (every source gated until an operator sets keys), retained, read only by the receivers', () => {
    const secret = resources[ingressSecretId];
    expect(secret.Type).toBe('AWS::SecretsManager::Secret');
    expect(secret.Properties.SecretString).toBe('{}');
    expect(secret.DeletionPolicy).toBe('Retain');
    const readers = ofType('AWS::IAM::Role')
      .map(([roleId]) => roleId)
      .filter((roleId) => grantsOf(resources, roleId).some((g) => referencedIds(g.resource).includes(ingressSecretId)));
    expect(readers.sort()).toEqual(receivers.map((op) => functionOf(op.operationId).roleId).sort());
    expect(json.Outputs.IngressSecretsArn.Value).toEqual({ Ref: ingressSecretId });
  });

  test('both receivers are in the imported API as POST methods on their functions', () => {
    const [[, api]] = ofType('AWS::ApiGateway::RestApi');
    for (const op of receivers) {
      const method = api.Properties.Body.paths[op.path].post;
      expect(method['x-amazon-apigateway-integration'].type).toBe('aws_proxy');
      expect(Object.keys(method.responses)).toContain('202');
    }
    expect(receivers.map((op) => op.path).sort()).toEqual(['/v1/lifecycle/events', '/v1/webhooks/{sourceId}']);
  });
});

describe('REST API imported from the contract table', () => {
  const [[apiId, api]] = ofType('AWS::ApiGateway::RestApi');
  const body = api.Properties.Body;

  test('OpenAPI 3.0 (API Gateway rejects 3.1), every operation of the table present with an integration', () => {
    expect(body.openapi).toMatch(/^3\.0\./);
    expect(api.Properties.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
    expect(api.Properties.MinimumCompressionSize).toBe(1024);
    for (const op of operations) {
      const object = body.paths[gatewayPath(op)]?.[op.method.toLowerCase()];
      expect(object).toBeDefined();
      expect(object['x-amazon-apigateway-integration']).toBeDefined();
    }
    for (const pathItem of Object.values(body.paths) as Record<string, any>[]) {
      for (const [method, object] of Object.entries(pathItem)) {
        if (['get', 'post', 'put', 'delete', 'patch', 'x-amazon-apigateway-any-method'].includes(method)) {
          expect(object['x-amazon-apigateway-integration']).toBeDefined();
        }
      }
    }
  });

  test('Lambda operations invoke their own function (GET routes for HEAD too); API Gateway may invoke it for those routes only', () => {
    for (const op of lambdaOps) {
      const { id } = functionOf(op.operationId);
      const methods = op.method === 'GET' ? ['GET', 'HEAD'] : [op.method];
      for (const method of methods) {
        const integration = body.paths[op.path][method.toLowerCase()]['x-amazon-apigateway-integration'];
        expect(integration).toMatchObject({ type: 'aws_proxy', httpMethod: 'POST' });
        // By the function's name, never a reference to it (lib/stack/public-api.ts: the functions depend on the distribution, which depends on the API).
        expect(referencedIds(integration.uri)).toEqual([]);
        expect(JSON.stringify(integration.uri)).toContain(`:function:${resources[id].Properties.FunctionName}/invocations`);
      }

      const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => referencedIds(p.Properties.FunctionName).includes(id));
      expect(permissions).toHaveLength(methods.length);
      const routes = permissions.map(([, p]) => {
        expect(p.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
        expect(referencedIds(p.Properties.SourceArn)).toContain(apiId);
        return JSON.stringify(p.Properties.SourceArn).match(new RegExp(`/${DEFAULT_SETTINGS.stageName}/([A-Z]+)(/[^"]*)"`))!.slice(1).join(' ');
      });
      expect(routes.sort()).toEqual(methods.map((m) => `${m} ${op.path.replace(/\{[^}]+\}/g, '*')}`).sort());
    }
  });

  test('HEAD beside every GET, an OPTIONS preflight on every path, and the 405 catch-all answering neither', () => {
    const cors = Object.fromEntries(Object.entries(CORS_RESPONSE_HEADERS).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [path, item] of Object.entries(body.paths) as [string, any][]) {
      const methods = operations.filter((op) => gatewayPath(op) === path).map((op) => op.method);
      if (methods.includes('GET')) expect(item.head['x-amazon-apigateway-integration']).toBeDefined();
      const preflight = item.options['x-amazon-apigateway-integration'];
      expect(preflight.type).toBe('mock');
      expect(preflight.responses.default.statusCode).toBe('204');
      const answered = Object.fromEntries(
        Object.entries(preflight.responses.default.responseParameters as Record<string, string>).map(([k, v]) => [k.replace('method.response.header.', '').toLowerCase(), v.slice(1, -1)]),
      );
      expect(answered).toEqual(preflightHeaders(methods));
      expect(answered['access-control-allow-methods'].split(', ')).toEqual(expect.arrayContaining([...methods, 'OPTIONS', ...(methods.includes('GET') ? ['HEAD'] : [])]));
      expect(answered['access-control-allow-headers'].split(', ')).toEqual(expect.arrayContaining(['content-type', 'if-none-match', 'x-correlation-id', 'webhook-id', 'webhook-timestamp', 'webhook-signature']));
      expect(Number(answered['access-control-max-age'])).toBeGreaterThan(0);

      const notAllowed = item['x-amazon-apigateway-any-method']['x-amazon-apigateway-integration'].responses.default;
      expect(notAllowed.responseParameters['method.response.header.Allow']).toBe(`'${preflightHeaders(methods).allow}'`);
      expect(notAllowed.responseParameters['method.response.header.Access-Control-Allow-Origin']).toBe(`'${cors['access-control-allow-origin']}'`);
    }
  });

  test('documents: S3 HEAD beside GET, CORS headers on every answer the bucket integration gives', () => {
    for (const op of operations.filter((o) => o.integration.kind === 'document')) {
      for (const method of ['get', 'head']) {
        const integration = body.paths[op.path][method]['x-amazon-apigateway-integration'];
        expect(integration.httpMethod).toBe(method.toUpperCase());
        expect(integration.timeoutInMillis).toBe(DOCUMENT_TIMEOUT_MS);
        for (const response of Object.values(integration.responses) as any[]) {
          expect(response.responseParameters['method.response.header.Access-Control-Allow-Origin']).toBe("'*'");
          expect(response.responseParameters['method.response.header.Access-Control-Expose-Headers']).toBe(`'${CORS_RESPONSE_HEADERS['access-control-expose-headers']}'`);
        }
      }
    }
  });

  test('every gateway response (404, 429, 4XX, 5XX) is problem details readable cross-origin', () => {
    const responses = body['x-amazon-apigateway-gateway-responses'];
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['MISSING_AUTHENTICATION_TOKEN', 'THROTTLED', 'DEFAULT_4XX', 'DEFAULT_5XX']));
    // Every gateway fault answers 503 with Retry-After, as its body says (never a bare 500/502/504).
    expect(responses.DEFAULT_5XX).toMatchObject({ statusCode: 503, responseParameters: { 'gatewayresponse.header.Retry-After': "'1'" } });
    expect(JSON.parse(responses.DEFAULT_5XX.responseTemplates['application/json']).status).toBe(503);
    for (const response of Object.values(responses) as any[]) {
      expect(response.responseParameters).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
        'gatewayresponse.header.Access-Control-Expose-Headers': `'${CORS_RESPONSE_HEADERS['access-control-expose-headers']}'`,
        'gatewayresponse.header.Content-Type': "'application/problem+json'",
      });
      // $context.error.messageString stands unquoted: API Gateway substitutes a quoted JSON string.
      const rendered = response.responseTemplates['application/json'].replace('$context.error.messageString', JSON.stringify('Request Too Long'));
      expect(JSON.parse(rendered).correlationId).toBe('$context.requestId');
    }
  });

  test('the import document in the template meets every documented API Gateway restriction', () => {
    expect(lintImportDocument(body)).toEqual([]);
  });

  test('answers of 1 KiB or more are compressed (minimum compression size)', () => {
    expect(api.Properties.MinimumCompressionSize).toBe(1024);
  });

  test('document operations read their object from the catalogue bucket through the read role, which may read only those', () => {
    const roleId = logicalIdOf(stack, stack.catalogue.apiReadRole);
    for (const op of operations) {
      if (op.integration.kind !== 'document') continue;
      const integration = body.paths[op.path][op.method.toLowerCase()]['x-amazon-apigateway-integration'];
      expect(integration).toMatchObject({ type: 'aws', httpMethod: 'GET', credentials: { 'Fn::GetAtt': [roleId, 'Arn'] } });
      expect(JSON.stringify(integration.uri)).toContain(`/${op.integration.key}"`);
      expect(referencedIds(integration.uri)).toContain(bucketId);
    }
    const grants = grantsOf(resources, roleId);
    expect(new Set(grants.map((g) => g.action))).toEqual(new Set(documentKeys.length > 0 ? ['s3:GetObject'] : []));
    // The documents by key, and the ledger's tile log by its prefix (its objects grow with the log).
    expect(grants.map((g) => JSON.stringify(g.resource).match(/\/([^"]+)"\]\]\}$/)?.[1]).sort()).toEqual([...new Set(documentKeys), `${LEDGER_LOG.keyPrefix}*`].sort());
  });

  test('the ledger tile log: S3 integrations below the log prefix (tile paths greedy), Cache-Control passed through, a missing object a 404', () => {
    const roleId = logicalIdOf(stack, stack.catalogue.apiReadRole);
    const logOps = operations.filter((op) => op.integration.kind === 'log');
    expect(logOps.map((op) => gatewayPath(op)).sort()).toEqual(['/ledger/checkpoint', '/ledger/checkpoints/{treeSize}', '/ledger/tile/{tilePath+}']);
    for (const op of logOps) {
      for (const method of ['get', 'head']) {
        const object = body.paths[gatewayPath(op)][method];
        const integration = object['x-amazon-apigateway-integration'];
        expect(integration).toMatchObject({ type: 'aws', httpMethod: method.toUpperCase(), credentials: { 'Fn::GetAtt': [roleId, 'Arn'] } });
        expect(referencedIds(integration.uri)).toContain(bucketId);
        const uri = JSON.stringify(integration.uri);
        expect(uri).toContain(`/${LEDGER_LOG.keyPrefix}`);
        for (const name of Object.keys(op.pathParams ?? {})) {
          expect(uri).toContain(`{${name}}`);
          expect(integration.requestParameters[`integration.request.path.${name}`]).toBe(`method.request.path.${name}`);
          expect(object.parameters).toContainEqual({ name, in: 'path', required: true, schema: { type: 'string' } });
        }
        const ok = integration.responses['2\\d{2}'].responseParameters;
        expect(ok['method.response.header.Cache-Control']).toBe('integration.response.header.Cache-Control');
        expect(ok['method.response.header.Content-Type']).toBe('integration.response.header.Content-Type');
        expect(integration.responses['40[34]'].statusCode).toBe('404');
        expect(integration.responses.default.statusCode).toBe('503');
      }
    }
  });

  test('the loader may write and read the tile log below its prefix only; the deployments never prune it', () => {
    const loaderGrants = grantsOf(resources, logicalIdOf(stack, stack.loader.role)).filter((g) => JSON.stringify(g.resource).includes(bucketId));
    expect(new Set(loaderGrants.map((g) => g.action))).toEqual(new Set(['s3:GetObject', 's3:PutObject']));
    for (const g of loaderGrants) expect(JSON.stringify(g.resource)).toMatch(new RegExp(`/${LEDGER_LOG.keyPrefix}\\*"`));
    // Each deployment syncs (and prunes) only its own extensions; no tile log key ends in one.
    const deployments = ofType('Custom::CDKBucketDeployment');
    expect(deployments.length).toBeGreaterThan(0);
    const tileKeys = ['checkpoint', 'checkpoints/34', 'tile/0/000', 'tile/0/x001/000.p/34', 'tile/entries/000.p/7', 'tile/1/000.p/1'].map((k) => `${LEDGER_LOG.keyPrefix}${k}`);
    for (const [, d] of deployments) {
      expect(d.Properties.Exclude).toEqual(['*']);
      for (const pattern of d.Properties.Include as string[]) {
        const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
        for (const key of tileKeys) expect([pattern, key, re.test(key)]).toEqual([pattern, key, false]);
      }
    }
  });

  test('stage: throttling, JSON access logs with the request id, error execution logs without bodies', () => {
    const [[, stage]] = ofType('AWS::ApiGateway::Stage');
    expect(stage.Properties.StageName).toBe(DEFAULT_SETTINGS.stageName);
    // The stage's default; the route classes' method throttles beside it (test/infra/capacity.test.ts).
    expect(stage.Properties.MethodSettings.filter((m: { ResourcePath: string }) => m.ResourcePath === '/*')).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: DEFAULT_SETTINGS.throttleRateLimit,
        ThrottlingBurstLimit: DEFAULT_SETTINGS.throttleBurstLimit,
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
      }),
    ]);
    const format: string = stage.Properties.AccessLogSetting.Format;
    // Substituting every $context variable must leave valid JSON (a '-' for a missing value included).
    const sample = JSON.parse(format.replace(/\$context\.[A-Za-z.]+/g, (v) => (v === '$context.status' ? '200' : '-')));
    expect(Object.keys(sample)).toEqual(Object.keys(ACCESS_LOG_FIELDS));
    expect(format).toContain('"requestId":"$context.requestId"');
    const destination = JSON.stringify(stage.Properties.AccessLogSetting.DestinationArn);
    expect(destination).toContain(logicalIdOf(stack, stack.publicApi.accessLogs));
    expect(resources[logicalIdOf(stack, stack.publicApi.accessLogs)].Properties.RetentionInDays).toBe(DEFAULT_SETTINGS.logRetentionDays);
  });

  test('the execution log group exists before the stage, with retention', () => {
    const executionLogs = resources[logicalIdOf(stack, stack.publicApi.executionLogs)];
    expect(JSON.stringify(executionLogs.Properties.LogGroupName)).toContain('API-Gateway-Execution-Logs_');
    const [[, stage]] = ofType('AWS::ApiGateway::Stage');
    expect(stage.DependsOn).toContain(logicalIdOf(stack, stack.publicApi.executionLogs));
  });

  test('the account CloudWatch role is set by default (logs need it), retained, and can be left to the account', () => {
    const [[, account]] = ofType('AWS::ApiGateway::Account');
    expect(account.DeletionPolicy).toBe('Retain');
    const withoutRole = synthesize({ apiGatewayCloudWatchRole: 'false' });
    withoutRole.template.resourceCountIs('AWS::ApiGateway::Account', 0);
    withoutRole.template.hasResourceProperties('AWS::ApiGateway::Stage', { AccessLogSetting: Match.anyValue() });
  });

  test('context settings reach the stage and the functions', () => {
    const custom = synthesize({
      throttleRateLimit: '7',
      throttleBurstLimit: '9',
      stageName: 'v2',
      ledgerVerifierKeys: 'key-1',
      logRetentionDays: 90,
      releaseCommit: 'abc1234',
      publicBaseUrl: 'https://trust.example.org/',
      logLevel: 'warn',
      logSampleRate: '0.05',
    });
    custom.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v2',
      MethodSettings: Match.arrayWith([Match.objectLike({ ResourcePath: '/*', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 })]),
    });
    for (const op of lambdaOps.filter((o) => o.integration.access === 'table-read')) {
      const fn = custom.stack.functions.byOperationId.get(op.operationId)!;
      expect(custom.json.Resources[logicalIdOf(custom.stack, fn)].Properties.Environment.Variables.LEDGER_VERIFIER_KEYS).toBe('key-1');
    }
    custom.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
    for (const fn of custom.stack.functions.byOperationId.values()) {
      expect(custom.json.Resources[logicalIdOf(custom.stack, fn)].Properties.Environment.Variables).toMatchObject({
        RELEASE_COMMIT: 'abc1234',
        PUBLIC_BASE_URL: 'https://trust.example.org',
        POWERTOOLS_LOG_LEVEL: 'WARN',
        POWERTOOLS_LOGGER_SAMPLE_RATE: '0.05',
      });
    }
    expect(custom.json.Resources[logicalIdOf(custom.stack, custom.stack.sequencer.function)].Properties.Environment.Variables).toMatchObject({
      POWERTOOLS_LOG_LEVEL: 'WARN',
      POWERTOOLS_LOGGER_SAMPLE_RATE: '0.05',
    });
  });

  test('activation settings reach only the functions whose operation declares them', () => {
    const custom = synthesize({ activationSettings: JSON.stringify({ OIDC_ISSUER_URL: 'https://id.example.org', OIDC_CLIENT_ID: 'svc-client' }) });
    for (const op of lambdaOps) {
      const fn = custom.stack.functions.byOperationId.get(op.operationId)!;
      const variables = custom.json.Resources[logicalIdOf(custom.stack, fn)].Properties.Environment.Variables;
      if (op.integration.settings?.includes('OIDC_ISSUER_URL')) {
        expect(variables).toMatchObject({ OIDC_ISSUER_URL: 'https://id.example.org', OIDC_CLIENT_ID: 'svc-client' });
      } else {
        expect(variables.OIDC_ISSUER_URL).toBeUndefined();
        expect(variables.OIDC_CLIENT_ID).toBeUndefined();
      }
    }
    expect(lambdaOps.filter((op) => op.integration.settings?.includes('OIDC_ISSUER_URL')).map((op) => op.operationId).sort()).toEqual(['getActivationReadiness', 'getStudio']);
    expect(() => synthesize({ activationSettings: '["not", "an object"]' })).toThrow('activationSettings');
  });

  test('a wrong context value stops the synth and names the key', () => {
    expect(() => createApp({ context: { ...SKIP_BUNDLING, deletionProtection: 'maybe' } }, { siteDir: fixtureSite() })).toThrow('deletionProtection');
    expect(() => createApp({ context: { ...SKIP_BUNDLING, logRetentionDays: 8 } }, { siteDir: fixtureSite() })).toThrow('logRetentionDays');
    expect(() => createApp({ context: { ...SKIP_BUNDLING, throttleRateLimit: '-1' } }, { siteDir: fixtureSite() })).toThrow('throttleRateLimit');
    expect(() => createApp({ context: { ...SKIP_BUNDLING, publicBaseUrl: 'http://plain.example' } }, { siteDir: fixtureSite() })).toThrow('publicBaseUrl');
    for (const rate of ['1.5', '-0.1', 'often', '']) {
      expect(() => createApp({ context: { ...SKIP_BUNDLING, logSampleRate: rate } }, { siteDir: fixtureSite() })).toThrow('logSampleRate');
    }
  });
});

describe('the two origins named by the published contract and catalogue', () => {
  const jsonDeployment = (j: typeof json) =>
    Object.values(j.Resources).find((r) => r.Type === 'Custom::CDKBucketDeployment' && r.Properties.SystemMetadata['content-type'] === 'application/json')!;

  test('by default both are the distribution\'s own domain, filled in at deploy time', () => {
    const distributionId = logicalIdOf(stack, stack.edge!.distribution);
    for (const origin of [stack.origins.verificationOrigin, stack.origins.generalOrigin]) {
      const resolved = stack.resolve(origin);
      expect(resolved).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] });
    }
    // The origin documents go with the JSON deployment as data whose markers are the distribution's domain.
    const deployment = jsonDeployment(json);
    expect(deployment.Properties.SourceObjectKeys.length).toBe(1 + stack.catalogue.originKeys.length);
    expect(referencedIds(deployment.Properties.SourceMarkers)).toContain(distributionId);
    expect(stack.catalogue.originKeys).toEqual(['developers/openapi.json', 'developers/catalogue.json']);
    for (const key of stack.catalogue.originKeys) expect(stack.catalogue.originDocuments.get(key)).toBeDefined();
    expect(JSON.stringify(json.Outputs.VerificationOrigin.Value)).toContain(distributionId);
    // Without the edge: the API's own URL (test/infra/edge.test.ts).
  });

  test('the build output\'s copies of those documents (local origins) are not deployed; every other document is', () => {
    const fresh = synthesize();
    const assembly = fresh.app.synth();
    const [hash] = String(jsonDeployment(fresh.json).Properties.SourceObjectKeys[0]).split('.');
    const staged = path.join(assembly.directory, `asset.${hash}`);
    expect(existsSync(staged)).toBe(true);
    for (const key of fresh.stack.catalogue.originKeys) expect(existsSync(path.join(staged, key))).toBe(false);
    for (const key of documentKeys.filter((k) => !fresh.stack.catalogue.originKeys.includes(k))) expect(existsSync(path.join(staged, key))).toBe(true);
    for (const [key, bytes] of fresh.stack.catalogue.originDocuments) expect(`${key}: ${bytes.includes('127.0.0.1')}`).toBe(`${key}: false`);
  });

  test('context verificationOrigin and generalOrigin (custom domains) are named in the contract and catalogue', () => {
    const custom = synthesize({ verificationOrigin: 'https://verify.example.org/', generalOrigin: 'https://developers.example.org' });
    expect(custom.stack.origins).toEqual({ verificationOrigin: 'https://verify.example.org', generalOrigin: 'https://developers.example.org' });
    const openapi = JSON.parse(custom.stack.catalogue.originDocuments.get('developers/openapi.json')!);
    expect(openapi.servers.map((s: { url: string }) => s.url)).toEqual(['https://verify.example.org', 'https://developers.example.org']);
    expect(openapi.paths['/v1/objects/{reference}'].servers.map((s: { url: string }) => s.url)).toEqual(['https://verify.example.org']);
    expect(openapi.paths['/developers/catalogue.json'].servers.map((s: { url: string }) => s.url)).toEqual(['https://developers.example.org']);
    const catalogue = JSON.parse(custom.stack.catalogue.originDocuments.get('developers/catalogue.json')!);
    expect(catalogue.baseUrl).toBe('https://developers.example.org');
    expect(catalogue.origins).toEqual({ verification: 'https://verify.example.org', general: 'https://developers.example.org' });
    expect(custom.json.Outputs.GeneralOrigin.Value).toBe('https://developers.example.org');
  });

  test('publicBaseUrl stands for both when the origins are not given', () => {
    const custom = synthesize({ publicBaseUrl: 'https://trust.example.org' });
    expect(custom.stack.origins).toEqual({ verificationOrigin: 'https://trust.example.org', generalOrigin: 'https://trust.example.org' });
  });

  test('an origin that is not an https URL stops the synth', () => {
    expect(() => createApp({ context: { ...SKIP_BUNDLING, verificationOrigin: 'http://verify.example.org' } }, { siteDir: fixtureSite() })).toThrow('verificationOrigin');
    expect(() => createApp({ context: { ...SKIP_BUNDLING, generalOrigin: 'https://x.example.org/?q=1' } }, { siteDir: fixtureSite() })).toThrow('generalOrigin');
  });
});

test('the template stays well under CloudFormation\'s 1 MB limit for a template in S3', () => {
  // Measured as CDK writes it: without indentation (suppressTemplateIndentation, lib/stack/app.ts).
  const { app, stack: s } = createApp({ context: SKIP_BUNDLING }, { siteDir: fixtureSite() });
  const file = app.synth({ force: true }).getStackByName(s.stackName).templateFullPath;
  expect(readFileSync(file, 'utf8').slice(0, 2)).toBe('{"');
  expect(statSync(file).size).toBeLessThan(800_000);
});

describe('cdk-nag AwsSolutions checks', () => {
  test('no unacknowledged finding (synth validates the app)', () => {
    const { app } = createApp({ context: SKIP_BUNDLING }, { siteDir: fixtureSite() });
    let failure: unknown;
    try {
      app.synth({ force: true });
    } catch (error) {
      failure = error;
    }
    if (failure) {
      const report = JSON.parse(readFileSync(path.join(app.outdir, 'validation-report.json'), 'utf8'));
      const findings = report.pluginReports.flatMap((r: any) =>
        r.violations.flatMap((v: any) => v.violatingConstructs.map((c: any) => `${v.ruleName} ${c.constructPath}`)),
      );
      expect(findings).toEqual([]);
    }
    expect(failure).toBeUndefined();
  });

  test('the checks are really on: an acknowledged finding comes back when its acknowledgement is removed', () => {
    const { app, stack: s } = createApp({ context: SKIP_BUNDLING }, { siteDir: fixtureSite() });
    // A second, unacknowledged secret must fail the validation.
    new Secret(s, 'UnacknowledgedSecret');
    expect(() => app.synth({ force: true })).toThrow(/AwsSolutions-SMG4/);
  });

  test('every acknowledgement carries a reason', () => {
    const acknowledged = stack.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY).map((m) => m.data as Record<string, string>));
    const nagAcknowledgements = acknowledged.flatMap((data) => Object.entries(data)).filter(([id]) => id.includes('AwsSolutions-'));
    expect(nagAcknowledgements.length).toBeGreaterThan(0);
    for (const [, reason] of nagAcknowledgements) expect(reason.length).toBeGreaterThan(40);
  });
});
