import { existsSync } from 'node:fs';
import path from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { LEDGER_LOG } from '../../../functions/contract/site-paths';
import { DEFAULT_BATCH_SIZE } from '../../../functions/ledger-writer/sequencer';
import { PENDING_PK_PREFIX } from '../../../functions/store/layout';
import { PENDING_INDEX, TABLE_KEYS } from '../../../functions/store/write';
import { filterCriteriaMatch } from '../../../lib/assembly/filter-pattern';
import { NODE_MAJOR } from '../../../lib/stack/bundling';
import { KEY_ADMINISTRATION_ACTIONS, SEQUENCER_ENTRY, SEQUENCER_TIMEOUT_SECONDS, STREAM_BATCH_SIZE } from '../../../lib/stack/sequencer';
import { PART_WRITER_TIMEOUT_SECONDS, SEQUENCER_PART_ENTRY, streamBatchSizeFor } from '../../../lib/stack/sequencer-parts';
import { EVENTS_PER_PART } from '../../../functions/ledger-writer/lambda-parts';
import { SEQUENCER_LEASE_MS } from '../../../functions/ledger-writer/sequencer';
import { DEFAULT_SETTINGS } from '../../../lib/stack/settings';
import { NO_LEDGER_ORIGIN } from '../../../lib/stack/trust-service-stack';
import { grantsOf, logicalIdOf, referencedIds, synthesize, TEST_LEDGER_ORIGIN } from '../support';
import { bucketId, deadLettersId, functionOf, ingressSecretId, lambdaOps, ledgerKeyId, loaderRoleId, LOG_ACTIONS, ofType, partWritersId, partWritersRoleId, RECORDS_EVENTS_AND_PART_CHUNKS_ONLY, resources, sequencerId, sequencerRoleId, stack, synthesized, tableId } from './template';

/** lib/stack/sequencer.ts: the ledger's signing key and the one function that integrates pending events into the ledger. */

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
      // The deploy-time verifier key's role reads the public half only (test/infra/stack/ledger-verifier-key.ts).
      if (roleId === logicalIdOf(stack, stack.verifierKey.function.role!)) {
        expect(kmsGrants(roleId).map((g) => g.action)).toEqual(['kms:GetPublicKey']);
        continue;
      }
      expect([roleId, kmsGrants(roleId)]).toEqual([roleId, []]);
      expect([roleId, grantsOf(resources, roleId).filter((g) => referencedIds(g.resource).includes(ledgerKeyId))]).toEqual([roleId, []]);
    }
    for (const op of lambdaOps) expect(referencedIds(functionOf(op.operationId).resource.Properties.Environment)).not.toContain(ledgerKeyId);
  });

  test('the key policy refuses kms:Sign to every principal but the two writers, and separates administration from use', () => {
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
    // Administration is separate from use: the account administers the key (and may read its public half) through IAM,
    // but has no kms:Sign (nor kms:*) to delegate; the two writers' roles are the only principals allowed to sign.
    const allows = statements.filter((s) => s.Effect === 'Allow');
    expect(allows.map((s) => s.Sid)).toEqual(['AccountAdministersTheKey', 'TheLedgerWritersSign']);
    const [account, writers] = allows;
    expect(JSON.stringify(account.Principal)).toMatch(/:root"\]\]\}\}$/);
    expect(JSON.stringify(account.Principal)).toContain('{"Ref":"AWS::AccountId"}');
    expect([...account.Action].sort()).toEqual([...KEY_ADMINISTRATION_ACTIONS].sort());
    for (const action of account.Action as string[]) expect(['kms:Sign', 'kms:Verify', 'kms:*'].some((used) => new RegExp(`^${action.replace('*', '.*')}$`).test(used))).toBe(false);
    // Signing the account may delegate through IAM to the two writers only: each still needs its own IAM grant.
    expect(JSON.stringify(writers.Principal)).toMatch(/:root"\]\]\}\}$/);
    expect([writers.Action, writers.Resource]).toEqual(['kms:Sign', '*']);
    expect(writers.Condition).toEqual({ ArnEquals: { 'aws:PrincipalArn': [{ 'Fn::GetAtt': [sequencerRoleId, 'Arn'] }, { 'Fn::GetAtt': [loaderRoleId, 'Arn'] }] } });
  });

  test('no secret holds a signing key any more: the only secret is the receivers\' keys', () => {
    expect(ofType('AWS::SecretsManager::Secret').map(([id]) => id)).toEqual([ingressSecretId]);
  });

});

describe('the sequencer', () => {
  const fn = resources[sequencerId];
  const grants = grantsOf(resources, sequencerRoleId);
  const [[mappingId, mapping]] = ofType('AWS::Lambda::EventSourceMapping');

  test('bundled from its handler like the operations: Node.js on arm64, JSON logs with retention, 60 s, more memory than a reader', () => {
    expect(existsSync(path.join(__dirname, '../../..', SEQUENCER_ENTRY))).toBe(true);
    expect(fn.Properties).toMatchObject({
      Runtime: `nodejs${NODE_MAJOR}.x`,
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: SEQUENCER_TIMEOUT_SECONDS,
      LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG', SystemLogLevel: 'WARN', LogGroup: expect.anything() },
    });
    expect(fn.Properties.MemorySize).toBeGreaterThanOrEqual(resources[functionOf(lambdaOps[0].operationId).id].Properties.MemorySize);
    expect(resources[fn.Properties.LoggingConfig.LogGroup.Ref].Properties.RetentionInDays).toBe(DEFAULT_SETTINGS.logRetentionDays);
    // Its metric line (embedded metric format) needs the Standard class.
    expect(resources[fn.Properties.LoggingConfig.LogGroup.Ref].Properties.LogGroupClass).toBeUndefined();
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
      POWERTOOLS_LOGGER_SAMPLE_RATE: String(DEFAULT_SETTINGS.logSampleRate),
      TABLE_NAME: { Ref: tableId },
      LEDGER_KMS_KEY_ARN: { 'Fn::GetAtt': [ledgerKeyId, 'Arn'] },
      LEDGER_ORIGIN: TEST_LEDGER_ORIGIN,
      LEDGER_TILES_BUCKET: { Ref: bucketId },
      LEDGER_TILES_PREFIX: LEDGER_LOG.keyPrefix,
      SEQUENCER_PART_FUNCTION: { Ref: partWritersId },
      SEQUENCER_PARTS: String(DEFAULT_SETTINGS.sequencerParts),
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
        `lambda:InvokeFunction ${JSON.stringify({ 'Fn::GetAtt': [partWritersId, 'Arn'] })}`,
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
    // A stream invocation is one batch of the sequencer's: the stream cuts it by the same count, a full part for each part writer.
    expect(STREAM_BATCH_SIZE).toBe(DEFAULT_BATCH_SIZE);
    expect(mapping.Properties.BatchSize).toBe(streamBatchSizeFor(DEFAULT_SETTINGS.sequencerParts, STREAM_BATCH_SIZE));
    expect(mapping.Properties.BatchSize).toBe(DEFAULT_SETTINGS.sequencerParts * EVENTS_PER_PART);
    expect(mapping.Properties.MaximumBatchingWindowInSeconds).toBeGreaterThan(0);
    expect(mapping.Properties.MaximumBatchingWindowInSeconds).toBeLessThanOrEqual(5);
    expect(mapping.Properties.MaximumRetryAttempts).toBeGreaterThanOrEqual(0);
    expect(mapping.Properties.MaximumRetryAttempts).toBeLessThanOrEqual(10);
    expect(mapping.Properties.MaximumRecordAgeInSeconds).toBeGreaterThan(0);
    const patterns = mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
    expect(patterns).toEqual([
      { eventName: ['INSERT'], dynamodb: { Keys: { [TABLE_KEYS.partitionKey]: { S: [{ prefix: PENDING_PK_PREFIX }] } }, NewImage: { queue: { S: [{ prefix: 'PENDING#' }] } } } },
    ]);
    expect(mappingId).toBeTruthy();
  });

  test('the filter admits what waits for the sequencer and nothing else the writers write (Lambda filter semantics, lib/assembly/filter-pattern.ts)', () => {
    const patterns = mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => f.Pattern);
    const record = (eventName: string, pk: string, image: Record<string, unknown> = {}) => ({
      eventName,
      dynamodb: { Keys: { pk: { S: pk }, sk: { S: '#' } }, NewImage: { pk: { S: pk }, sk: { S: '#' }, ...image } },
    });
    const waiting = { queue: { S: 'PENDING#17' }, receivedAt: { S: '2026-11-24T00:00:00.000Z' } };
    expect(filterCriteriaMatch(patterns, record('INSERT', 'P#service-platform#event:0f3a', waiting))).toBe(true);
    for (const [eventName, pk, image] of [
      // A delivery's note (it points at the event, which is what waits), a refused delivery, an item the sequencer finished.
      ['INSERT', 'P#service-platform#msg_1', { event: { S: 'P#service-platform#event:0f3a' } }],
      ['INSERT', 'P#service-platform#msg_2', { status: { N: '422' } }],
      ['MODIFY', 'P#service-platform#event:0f3a', { sequencing: { S: 'SEQUENCED' } }],
      ['REMOVE', 'P#service-platform#event:0f3a', waiting],
      ['INSERT', 'R#ORD-2026-0001', {}],
      ['INSERT', 'L#LOG', {}],
      ['INSERT', 'L#T#00#000000000003', {}],
      ['INSERT', 'L#J#000000000042', {}],
      ['INSERT', 'S#TABLE', {}],
    ] as const) {
      expect([eventName, pk, filterCriteriaMatch(patterns, record(eventName, pk, image))]).toEqual([eventName, pk, false]);
    }
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

  test('the ledger origin: context ledgerOrigin, else derived from the verification origin or publicBaseUrl, else the synth stops naming the context to set', () => {
    const originOf = (context: Record<string, unknown>) => {
      const s = synthesized(context);
      return [s.json.Resources[logicalIdOf(s.stack, s.stack.sequencer.function)].Properties.Environment.Variables.LEDGER_ORIGIN, s.json.Outputs.LedgerOrigin?.Value];
    };
    expect(originOf({ ledgerOrigin: 'log.example.org/ledger' })).toEqual(['log.example.org/ledger', 'log.example.org/ledger']);
    expect(originOf({ verificationOrigin: 'https://verify.example.org/base', publicBaseUrl: 'https://trust.example.org' })).toEqual(['verify.example.org/base/ledger', 'verify.example.org/base/ledger']);
    expect(originOf({ publicBaseUrl: 'https://trust.example.org/' })).toEqual(['trust.example.org/ledger', 'trust.example.org/ledger']);
    // Given, it wins over the derivation (a log keeps its origin when a domain is added later).
    expect(originOf({ ledgerOrigin: 'old.example.org/ledger', verificationOrigin: 'https://new.example.org' })[0]).toBe('old.example.org/ledger');
    // No origin: an error on the stack, which stops `cdk synth` and `cdk deploy`, naming every context that gives one.
    expect(() => synthesize({ ledgerOrigin: '' })).toThrow(NO_LEDGER_ORIGIN);
    expect(NO_LEDGER_ORIGIN).toMatch(/verificationOrigin.*verificationDomain.*publicBaseUrl.*ledgerOrigin/);
    expect(Annotations.fromStack(synthesized({ ledgerOrigin: 'log.example.org/ledger' }).stack).findError('*', Match.anyValue())).toEqual([]);
    for (const bad of ['https://trust.example.org/ledger', 'trust example/ledger', 'a+b']) {
      expect(() => synthesize({ ledgerOrigin: bad })).toThrow('ledgerOrigin');
    }
  });
});

describe('the part writers', () => {
  const fn = resources[partWritersId];
  const grants = grantsOf(resources, partWritersRoleId);

  test('one function, bundled from its handler like the sequencer: a whole vCPU, a time limit that ends it before the lease of a sequencer that died invoking it runs out', () => {
    expect(existsSync(path.join(__dirname, '../../..', SEQUENCER_PART_ENTRY))).toBe(true);
    expect(fn.Properties).toMatchObject({ Runtime: `nodejs${NODE_MAJOR}.x`, Architectures: ['arm64'], Handler: 'index.handler', MemorySize: 1769, Timeout: PART_WRITER_TIMEOUT_SECONDS });
    // A sequencer invokes a part while it holds the lease; once it has died, its parts end before another may take the lease.
    expect((SEQUENCER_TIMEOUT_SECONDS + PART_WRITER_TIMEOUT_SECONDS) * 1000).toBeLessThan(SEQUENCER_LEASE_MS);
    // As many at once as a batch has parts: a read flood never takes them.
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(DEFAULT_SETTINGS.sequencerParts);
    expect(fn.Properties.Environment.Variables).toEqual({
      POWERTOOLS_SERVICE_NAME: 'public-trust-verification-service',
      POWERTOOLS_LOG_LEVEL: DEFAULT_SETTINGS.logLevel,
      POWERTOOLS_LOGGER_SAMPLE_RATE: String(DEFAULT_SETTINGS.logSampleRate),
      TABLE_NAME: { Ref: tableId },
      LEDGER_TILES_BUCKET: { Ref: bucketId },
      LEDGER_TILES_PREFIX: LEDGER_LOG.keyPrefix,
    });
  });

  test('what it may do: read and write the records and the events (partition keys R# and P#) and the journal chunks its parts store (J#), put the tile log\'s tiles and bundles, and its logs; never the ledger\'s items, the tile log\'s checkpoint or the key', () => {
    const table = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const tiles = (folder: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, `/${LEDGER_LOG.keyPrefix}${folder}tile/*`]] });
    expect(grants.every((g) => g.effect === 'Allow')).toBe(true);
    expect(grants.map((g) => `${g.action} ${JSON.stringify(g.resource)} ${JSON.stringify(g.condition ?? null)}`).sort()).toEqual(
      [
        ...['BatchGetItem', 'BatchWriteItem', 'GetItem', 'Query'].map((a) => `dynamodb:${a} ${JSON.stringify(table)} ${JSON.stringify(RECORDS_EVENTS_AND_PART_CHUNKS_ONLY)}`),
        `s3:PutObject ${JSON.stringify(tiles(''))} null`,
        `s3:PutObject ${JSON.stringify(tiles('logs/*/'))} null`,
        ...LOG_ACTIONS.map((a) => `${a} ${JSON.stringify({ 'Fn::GetAtt': [fn.Properties.LoggingConfig.LogGroup.Ref, 'Arn'] })} null`),
      ].sort(),
    );
  });

  test('only the sequencer may invoke them', () => {
    for (const [roleId] of ofType('AWS::IAM::Role')) {
      const invokes = grantsOf(resources, roleId).filter((g) => g.action.startsWith('lambda:') && referencedIds(g.resource).includes(partWritersId));
      expect([roleId, invokes.length]).toEqual([roleId, roleId === sequencerRoleId ? 1 : 0]);
    }
  });

  test('with one part a batch (sequencerParts=1), none: the sequencer plans every batch itself, its stream batch one of its own', () => {
    const { json } = synthesized({ sequencerParts: 1 });
    const seq = Object.values(json.Resources).filter((r) => r.Type === 'AWS::Lambda::Function' && JSON.stringify(r.Properties.Environment ?? {}).includes('LEDGER_KMS_KEY_ARN'));
    expect(seq).toHaveLength(1);
    expect(seq[0].Properties.Environment.Variables.SEQUENCER_PART_FUNCTION).toBeUndefined();
    const functions = (resources: Record<string, { Type: string }>) => Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function').length;
    expect(functions(json.Resources)).toBe(functions(resources) - 1);
    const [mapping] = Object.values(json.Resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties.BatchSize).toBe(STREAM_BATCH_SIZE);
  });
});
