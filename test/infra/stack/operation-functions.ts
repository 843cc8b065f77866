import { NODE_MAJOR, nodeOptionsFor } from '../../../lib/stack/bundling';
import { DEFAULT_SETTINGS } from '../../../lib/stack/settings';
import { grantsOf, logicalIdOf, referencedIds } from '../support';
import { bucketId, functionOf, ingressSecretId, lambdaOps, loaderRoleId, LOG_ACTIONS, ofType, partWritersId, partWritersRoleId, PENDING_ONLY, receivers, RECORDS_EVENTS_AND_PART_CHUNKS_ONLY, RECORDS_ONLY, resources, sequencerId, sequencerRoleId, stack, tableId, verifierKeyId } from './template';

/** lib/stack/operation-functions.ts: one function per Lambda operation of the contract table, and what each may reach. */

/** Variables that would point a function at a resource or at the ledger. */
const RESOURCE_VARIABLES = ['TABLE_NAME', 'CATALOGUE_BUCKET', 'LEDGER_VERIFIER_KEYS', 'AWS_ENDPOINT_URL_DYNAMODB'];
const READ_ACTIONS = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 's3:GetObject'];

describe('functions: one per Lambda operation of the contract table', () => {
  test('the table has Lambda operations, and each has exactly one function', () => {
    expect(lambdaOps.length).toBeGreaterThan(0);
    expect([...stack.functions.byOperationId.keys()].sort()).toEqual(lambdaOps.map((op) => op.operationId).sort());
    // Besides them, the sequencer, its part writers and the deploy-time verifier key's function are the stack's only Node.js functions.
    const nodeFunctions = ofType('AWS::Lambda::Function').filter(([, r]) => String(r.Properties.Runtime).startsWith('nodejs'));
    expect(nodeFunctions).toHaveLength(lambdaOps.length + 3);
    expect(nodeFunctions.map(([id]) => id)).toEqual(expect.arrayContaining([sequencerId, partWritersId, logicalIdOf(stack, stack.verifierKey.function)]));
  });

  test.each(lambdaOps.map((op) => op.operationId))('%s: Node.js on arm64, the Powertools Logger\'s settings (Lambda filters nothing of its lines, writes none of its own), retained logs in the Infrequent Access class', (operationId) => {
    const { resource } = functionOf(operationId);
    const p = resource.Properties;
    expect(p.Runtime).toBe(`nodejs${NODE_MAJOR}.x`);
    expect(p.Architectures).toEqual(['arm64']);
    expect(p.Handler).toBe('index.handler');
    expect(p.Timeout).toBeLessThan(29);
    // Lambda filters nothing of the function's lines (a sampled invocation's or a 5xx's debug lines reach the log) and writes none of its own (lib/stack/logging.ts).
    expect(p.LoggingConfig).toEqual({ LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG', SystemLogLevel: 'WARN', LogGroup: expect.anything() });
    const env = p.Environment.Variables;
    expect(env).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'public-trust-verification-service',
      POWERTOOLS_LOG_LEVEL: DEFAULT_SETTINGS.logLevel,
    });
    // One invocation in a hundred logs its debug lines unless a deployment says otherwise (context logSampleRate).
    expect(env.POWERTOOLS_LOGGER_SAMPLE_RATE).toBe(String(DEFAULT_SETTINGS.logSampleRate));
    // Source-mapped stack traces cost every cold start a parse of the map: DEBUG deployments only.
    expect(env.NODE_OPTIONS).toBe(nodeOptionsFor(DEFAULT_SETTINGS.logLevel));
    // The SDK v2 variable does nothing for SDK v3 (which keeps connections alive itself).
    expect(env).not.toHaveProperty('AWS_NODEJS_CONNECTION_REUSE_ENABLED');
    const logGroupId = p.LoggingConfig.LogGroup.Ref;
    expect(resources[logGroupId].Type).toBe('AWS::Logs::LogGroup');
    expect(resources[logGroupId].Properties.RetentionInDays).toBe(DEFAULT_SETTINGS.logRetentionDays);
    expect(resources[logGroupId].Properties.LogGroupClass).toBe('INFREQUENT_ACCESS');
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
          ['dynamodb:BatchGetItem', PENDING_ONLY],
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
      // Learned from the KMS key at deploy time (lib/stack/ledger-verifier-key.ts).
      expect(env).toHaveProperty('LEDGER_VERIFIER_KEYS', { 'Fn::GetAtt': [verifierKeyId, 'TrustedVerifierKeys'] });
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

  test('no role but the two ledger writers (the loader and the sequencer) may write the table; the part writers records and events only, the receivers pending-event items only', () => {
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
      } else if (roleId === partWritersRoleId) expect(writes.map((g) => [g.action, g.condition])).toEqual([['dynamodb:BatchWriteItem', RECORDS_EVENTS_AND_PART_CHUNKS_ONLY]]);
      else if (receiverRoles.has(roleId)) expect(writes.map((g) => [g.action, g.condition])).toEqual([['dynamodb:PutItem', PENDING_ONLY]]);
      else expect(writes).toEqual([]);
    }
  });

  test('the leading-key condition names the prefix the store writes pending events under', () => {
    const { PENDING_PK_PREFIX, pendingPk, RECORD_PK_PREFIX, recordPk } = jest.requireActual('../../../functions/store/layout');
    expect(pendingPk('service-platform', 'msg_1').startsWith(PENDING_PK_PREFIX)).toBe(true);
    expect(PENDING_ONLY['ForAllValues:StringLike']['dynamodb:LeadingKeys']).toEqual([`${PENDING_PK_PREFIX}*`]);
    expect(recordPk('ORD-1').startsWith(RECORD_PK_PREFIX)).toBe(true);
    // No other partition family starts with the pending prefix (records, ledger, table metadata).
    for (const pk of [recordPk('P#x'), 'L#LOG', 'S#TABLE']) expect(pk.startsWith(PENDING_PK_PREFIX)).toBe(false);
  });
});
