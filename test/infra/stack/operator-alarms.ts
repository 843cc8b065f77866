import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { logicalIdOf, synthesize, type CfnResourceJson } from '../support';
import { deadLettersId, json, lambdaOps, sequencerId, stack, synthesized, tableId } from './template';

/**
 * The operator's alarms (lib/stack/operator-alarms.ts, docs/deploy.md#operating): each alarm's
 * metric, threshold, period, comparison, missing-data rule and actions, as CloudFormation gets them;
 * the topic each context setting gives; the dashboard. Expected values are written out here, not
 * taken from the construct's constants, so a changed figure fails until the docs and this file agree.
 */
const resources = json.Resources;
const ofType = (r: Record<string, CfnResourceJson>, type: string) => Object.entries(r).filter(([, v]) => v.Type === type);

const apiId = logicalIdOf(stack, stack.publicApi.api);
const stageId = logicalIdOf(stack, stack.publicApi.api.deploymentStage);

const WITH_EMAIL = { alarmEmail: 'operators@example.org' };
const WITH_TOPIC = { alarmTopicArn: 'arn:aws:sns:eu-central-1:111122223333:operations-alarms' };

const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').map(([id, r]) => ({ id, ...r.Properties }) as Record<string, any>);
const byName = (suffix: string) => {
  const found = alarms.filter((a) => a.AlarmName === `PublicTrustVerificationService-${suffix}`);
  if (found.length !== 1) throw new Error(`no single alarm named ...-${suffix} (found ${found.length})`);
  return found[0];
};

/** The one metric an alarm reads (the library wraps some in FILL(x, 0), which changes nothing for a count). */
function metricOf(alarm: Record<string, any>): { namespace: string; name: string; dimensions: Record<string, unknown>; stat: string; period: number; expression?: string } {
  const stats = (alarm.Metrics as any[]).filter((m) => m.MetricStat);
  expect(stats).toHaveLength(1);
  const { Metric, Stat, Period } = stats[0].MetricStat;
  const expression = (alarm.Metrics as any[]).find((m) => m.Expression)?.Expression;
  return {
    namespace: Metric.Namespace,
    name: Metric.MetricName,
    dimensions: Object.fromEntries((Metric.Dimensions as any[]).map((d) => [d.Name, d.Value])),
    stat: Stat,
    period: Period,
    ...(expression ? { expression } : {}),
  };
}

function ruleOf(alarm: Record<string, any>) {
  return {
    threshold: alarm.Threshold,
    comparison: alarm.ComparisonOperator,
    evaluationPeriods: alarm.EvaluationPeriods,
    datapointsToAlarm: alarm.DatapointsToAlarm,
    treatMissingData: alarm.TreatMissingData,
  };
}

/** The dashboard's body with every CloudFormation token replaced by `<id>` / `<id.Attr>`, parsed. */
function dashboardBody(resource: CfnResourceJson): { widgets: Array<{ type: string; properties: Record<string, any> }> } {
  const body = resource.Properties.DashboardBody;
  const parts: unknown[] = typeof body === 'string' ? [body] : body['Fn::Join'][1];
  const text = parts
    .map((p) => {
      if (typeof p === 'string') return p;
      const token = p as Record<string, any>;
      if (token.Ref) return `<${token.Ref}>`;
      if (token['Fn::GetAtt']) return `<${token['Fn::GetAtt'].join('.')}>`;
      throw new Error(`unexpected token in the dashboard body: ${JSON.stringify(p)}`);
    })
    .join('');
  return JSON.parse(text);
}

describe('the alarms', () => {
  const topicId = ofType(resources, 'AWS::SNS::Topic')[0][0];

  test('one per rule: the oldest pending event, the dead-letter queue, the API 5XX rate, the table and index throttles, and errors and throttles of every function', () => {
    // Every Lambda operation's function and the sequencer: 2 each; then 1 + 1 + 1 + 4.
    expect(alarms).toHaveLength(2 * (lambdaOps.length + 1) + 7);
    expect(new Set(alarms.map((a) => a.AlarmName)).size).toBe(alarms.length);
  });

  test('every alarm notifies the topic on ALARM and on OK, with actions enabled, and its description says where it is explained', () => {
    for (const alarm of alarms) {
      expect({ name: alarm.AlarmName, enabled: alarm.ActionsEnabled, alarm: alarm.AlarmActions, ok: alarm.OKActions, insufficient: alarm.InsufficientDataActions }).toEqual({
        name: alarm.AlarmName,
        enabled: true,
        alarm: [{ Ref: topicId }],
        ok: [{ Ref: topicId }],
        insufficient: undefined,
      });
      expect(alarm.AlarmDescription).toContain('(docs/deploy.md#operating)');
    }
  });

  test('the oldest pending event: the sequencer\'s own metric for this table, above 300 s in any minute of five, and five minutes without a figure alarm too', () => {
    const alarm = byName('Sequencer-OldestPendingEvent-Critical');
    expect(metricOf(alarm)).toEqual({
      namespace: 'PublicTrustVerificationService',
      name: 'OldestPendingEventAge',
      // What Powertools Metrics writes: its service dimension and the table the handler names.
      dimensions: { service: 'public-trust-verification-service', TableName: { Ref: tableId } },
      stat: 'Maximum',
      period: 60,
    });
    expect(ruleOf(alarm)).toEqual({ threshold: 300, comparison: 'GreaterThanThreshold', evaluationPeriods: 5, datapointsToAlarm: 1, treatMissingData: 'breaching' });
  });

  test('the sequencer\'s dead-letter queue: any visible message; an idle queue (no figures) is empty', () => {
    const alarm = byName('SequencerDeadLetters-Queue-Message-Count-Max-Critical');
    expect(metricOf(alarm)).toEqual({
      namespace: 'AWS/SQS',
      name: 'ApproximateNumberOfMessagesVisible',
      dimensions: { QueueName: { 'Fn::GetAtt': [deadLettersId, 'QueueName'] } },
      stat: 'Maximum',
      period: 60,
    });
    expect(ruleOf(alarm)).toEqual({ threshold: 0, comparison: 'GreaterThanThreshold', evaluationPeriods: 1, datapointsToAlarm: 1, treatMissingData: 'notBreaching' });
  });

  test('the API\'s 5XX rate: above 5% in two of three 5-minute periods, for this API\'s name and stage', () => {
    const alarm = byName('Api-Fault-Rate-Critical');
    const metric = metricOf(alarm);
    expect(metric).toEqual({
      namespace: 'AWS/ApiGateway',
      name: '5XXError',
      dimensions: { ApiName: 'PublicTrustVerificationService', Stage: 'live' },
      // 5XXError is 0 or 1 per request: its average is the share of 5XX answers.
      stat: 'Average',
      period: 300,
    });
    // The dimensions name what is deployed: the API's own name (unique to the stack) and its stage.
    expect(resources[apiId].Properties.Name).toBe(metric.dimensions.ApiName);
    expect(resources[stageId].Properties.StageName).toBe(metric.dimensions.Stage);
    expect(ruleOf(alarm)).toEqual({ threshold: 0.05, comparison: 'GreaterThanThreshold', evaluationPeriods: 3, datapointsToAlarm: 2, treatMissingData: 'notBreaching' });
    // Another stage name reaches the alarm.
    const other = synthesized({ stageName: 'v2' }).json.Resources;
    const otherAlarm = Object.values(other).find((r) => r.Properties.AlarmName === 'PublicTrustVerificationService-Api-Fault-Rate-Critical')!;
    expect(metricOf(otherAlarm.Properties).dimensions.Stage).toBe('v2');
  });

  test.each([...lambdaOps.map((op) => [op.operationId, op.operationId] as const), ['the sequencer', 'Sequencer'] as const])(
    'function %s: any error in 5 minutes',
    (_name, friendly) => {
      const alarm = byName(`${friendly}-Fault-Count-Critical`);
      const fnId = friendly === 'Sequencer' ? sequencerId : logicalIdOf(stack, stack.functions.byOperationId.get(friendly)!);
      expect(metricOf(alarm)).toEqual({ namespace: 'AWS/Lambda', name: 'Errors', dimensions: { FunctionName: { Ref: fnId } }, stat: 'Sum', period: 300 });
      expect(ruleOf(alarm)).toEqual({ threshold: 0, comparison: 'GreaterThanThreshold', evaluationPeriods: 1, datapointsToAlarm: 1, treatMissingData: 'notBreaching' });
    },
  );

  test.each(lambdaOps.map((op) => op.operationId))('function %s: any throttle in 5 minutes', (operationId) => {
    const alarm = byName(`${operationId}-Throttled-Count-Critical`);
    const fnId = logicalIdOf(stack, stack.functions.byOperationId.get(operationId)!);
    expect(metricOf(alarm)).toEqual({ namespace: 'AWS/Lambda', name: 'Throttles', dimensions: { FunctionName: { Ref: fnId } }, stat: 'Sum', period: 300 });
    expect(ruleOf(alarm)).toEqual({ threshold: 0, comparison: 'GreaterThanThreshold', evaluationPeriods: 1, datapointsToAlarm: 1, treatMissingData: 'notBreaching' });
  });

  test('the sequencer\'s throttles: only when they last three 5-minute periods (one run at a time is its design)', () => {
    const alarm = byName('Sequencer-Throttled-Count-Warning');
    expect(metricOf(alarm)).toEqual({ namespace: 'AWS/Lambda', name: 'Throttles', dimensions: { FunctionName: { Ref: sequencerId } }, stat: 'Sum', period: 300 });
    expect(ruleOf(alarm)).toEqual({ threshold: 0, comparison: 'GreaterThanThreshold', evaluationPeriods: 3, datapointsToAlarm: 3, treatMissingData: 'notBreaching' });
    expect(resources[sequencerId].Properties.ReservedConcurrentExecutions).toBe(1);
  });

  test.each([
    ['RecordTable-Read', 'ReadThrottleEvents', {}],
    ['RecordTable-Write', 'WriteThrottleEvents', {}],
    ['PendingIndex-Read', 'ReadThrottleEvents', { GlobalSecondaryIndexName: 'pending' }],
    ['PendingIndex-Write', 'WriteThrottleEvents', { GlobalSecondaryIndexName: 'pending' }],
  ])('the table: %s throttled events, any in 5 minutes', (friendly, metricName, indexDimension) => {
    const alarm = byName(`${friendly}-Throttled-Events-Critical`);
    const metric = metricOf(alarm);
    expect(metric).toMatchObject({ namespace: 'AWS/DynamoDB', name: metricName, dimensions: { TableName: { Ref: tableId }, ...indexDimension }, stat: 'Sum', period: 300 });
    // A period without throttles has no figure: it counts as 0.
    expect(metric.expression).toMatch(/^FILL\(\w+,0\)$/);
    expect(ruleOf(alarm)).toEqual({ threshold: 0, comparison: 'GreaterThanThreshold', evaluationPeriods: 1, datapointsToAlarm: 1, treatMissingData: 'notBreaching' });
  });

  test('the index named in the throttle alarms is the table\'s', () => {
    expect(resources[tableId].Properties.GlobalSecondaryIndexes.map((i: { IndexName: string }) => i.IndexName)).toEqual(['pending']);
  });
});

describe('the alarm topic, by context', () => {
  test('neither alarmTopicArn nor alarmEmail: the stack\'s own topic, without subscriptions, its ARN an output', () => {
    const topics = ofType(resources, 'AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    const [[topicId]] = topics;
    expect(ofType(resources, 'AWS::SNS::Subscription')).toEqual([]);
    expect(json.Outputs.AlarmTopicArn.Value).toEqual({ Ref: topicId });
  });

  test('the own topic\'s policy: TLS only, and this stack\'s alarms (by name, in this account) may publish', () => {
    const [[topicId]] = ofType(resources, 'AWS::SNS::Topic');
    const policies = ofType(resources, 'AWS::SNS::TopicPolicy');
    expect(policies).toHaveLength(1);
    const [[, policy]] = policies;
    expect(policy.Properties.Topics).toEqual([{ Ref: topicId }]);
    const statements = policy.Properties.PolicyDocument.Statement as any[];
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Principal: '*', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const allow = statements.find((s) => s.Effect === 'Allow');
    expect(allow).toMatchObject({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: 'sns:Publish', Resource: { Ref: topicId } });
    expect(allow.Condition.StringEquals).toEqual({ 'aws:SourceAccount': { Ref: 'AWS::AccountId' } });
    // The ARN pattern, with the pseudo parameters in place of their values, must match every alarm of the stack.
    const pattern = (allow.Condition.ArnLike['aws:SourceArn']['Fn::Join'][1] as any[]).map((p) => (typeof p === 'string' ? p : `<${p.Ref}>`)).join('');
    expect(pattern).toBe('arn:<AWS::Partition>:cloudwatch:<AWS::Region>:<AWS::AccountId>:alarm:PublicTrustVerificationService-*');
    const matches = (name: string) => new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '*' ? '.*' : `\\${c}`))}$`).test(`arn:<AWS::Partition>:cloudwatch:<AWS::Region>:<AWS::AccountId>:alarm:${name}`);
    expect(alarms.filter((a) => !matches(a.AlarmName)).map((a) => a.AlarmName)).toEqual([]);
  });

  test('synth says when nobody would be told, and only then', () => {
    const infoAbout = (s: typeof stack) => Annotations.fromStack(s).findInfo('*', Match.stringLikeRegexp('alarmEmail or alarmTopicArn')).map((m) => m.id);
    expect(infoAbout(stack)).toEqual(['/PublicTrustVerificationService/Alarms']);
    expect(infoAbout(synthesized(WITH_EMAIL).stack)).toEqual([]);
    expect(infoAbout(synthesized(WITH_TOPIC).stack)).toEqual([]);
  });

  test('alarmEmail: the own topic, with that address subscribed by email', () => {
    const { json: j } = synthesized(WITH_EMAIL);
    const [[topicId]] = ofType(j.Resources, 'AWS::SNS::Topic');
    const subscriptions = ofType(j.Resources, 'AWS::SNS::Subscription');
    expect(subscriptions.map(([, s]) => s.Properties)).toEqual([{ Protocol: 'email', Endpoint: 'operators@example.org', TopicArn: { Ref: topicId } }]);
    expect(j.Outputs.AlarmTopicArn.Value).toEqual({ Ref: topicId });
  });

  test('alarmTopicArn: no topic of the stack\'s own; every alarm notifies the given topic', () => {
    const arn = WITH_TOPIC.alarmTopicArn;
    const { json: j } = synthesized(WITH_TOPIC);
    expect(ofType(j.Resources, 'AWS::SNS::Topic')).toEqual([]);
    expect(ofType(j.Resources, 'AWS::SNS::TopicPolicy')).toEqual([]);
    expect(ofType(j.Resources, 'AWS::SNS::Subscription')).toEqual([]);
    const given = ofType(j.Resources, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    expect(given).toHaveLength(alarms.length);
    for (const a of given) expect([a.AlarmActions, a.OKActions]).toEqual([[arn], [arn]]);
    expect(j.Outputs.AlarmTopicArn.Value).toBe(arn);
  });

  test('a wrong value, or both settings, stop the synth naming the key', () => {
    expect(() => synthesize({ alarmTopicArn: 'operations-alarms' })).toThrow(/context 'alarmTopicArn'/);
    expect(() => synthesize({ alarmTopicArn: 'arn:aws:sqs:eu-central-1:111122223333:queue' })).toThrow(/context 'alarmTopicArn'/);
    expect(() => synthesize({ alarmEmail: 'operators' })).toThrow(/context 'alarmEmail'/);
    expect(() => synthesize({ alarmEmail: 'a@example.org,b@example.org' })).toThrow(/context 'alarmEmail'/);
    expect(() => synthesize({ alarmTopicArn: 'arn:aws:sns:eu-central-1:111122223333:ops', alarmEmail: 'operators@example.org' })).toThrow(/context 'alarmEmail'.*alarmTopicArn/);
  });

  test.each([WITH_EMAIL, WITH_TOPIC])('cdk-nag finds nothing with %j (the default is checked with the acknowledgements, nag-acknowledgements.ts)', (context) => {
    expect(() => synthesized(context).app.synth({ force: true })).not.toThrow();
  });
});

describe('the dashboard', () => {
  const dashboards = ofType(resources, 'AWS::CloudWatch::Dashboard');
  const [[dashboardId, dashboard]] = dashboards;
  const body = dashboardBody(dashboard);
  const graphs = body.widgets.filter((w) => w.type === 'metric');
  /** Every metric drawn, as "namespace name dim=value ..." (a metric after the first in a widget may give only what differs: "..."). */
  const drawn = graphs.flatMap((g) => {
    let previous: unknown[] = [];
    return (g.properties.metrics as unknown[][]).map((m) => {
      const values = m.filter((v) => typeof v === 'string').map((v, i) => (v === '.' ? previous[i] : v)) as string[];
      previous = values;
      return values.join(' ');
    });
  });

  test('one, named after the stack, its name an output', () => {
    expect(dashboards).toHaveLength(1);
    expect(dashboard.Properties.DashboardName).toBe('PublicTrustVerificationService');
    expect(json.Outputs.DashboardName.Value).toEqual({ Ref: dashboardId });
  });

  test('it opens with the state of every alarm', () => {
    const statusWidgets = body.widgets.filter((w) => w.type === 'alarm');
    expect(body.widgets.findIndex((w) => w.type === 'alarm')).toBeLessThanOrEqual(1);
    const shown = statusWidgets.flatMap((w) => w.properties.alarms as string[]);
    expect(shown.sort()).toEqual(alarms.map((a) => `<${a.id}.Arn>`).sort());
  });

  test('it draws the metric of every alarm', () => {
    const expected = [
      `PublicTrustVerificationService OldestPendingEventAge TableName <${tableId}> service public-trust-verification-service`,
      `AWS/SQS ApproximateNumberOfMessagesVisible QueueName <${deadLettersId}.QueueName>`,
      'AWS/ApiGateway 5XXError ApiName PublicTrustVerificationService Stage live',
      `AWS/DynamoDB ReadThrottleEvents TableName <${tableId}>`,
      `AWS/DynamoDB WriteThrottleEvents TableName <${tableId}>`,
      `AWS/DynamoDB ReadThrottleEvents GlobalSecondaryIndexName pending TableName <${tableId}>`,
      `AWS/DynamoDB WriteThrottleEvents GlobalSecondaryIndexName pending TableName <${tableId}>`,
      ...[sequencerId, ...[...stack.functions.byOperationId.values()].map((fn) => logicalIdOf(stack, fn))].flatMap((id) => [
        `AWS/Lambda Errors FunctionName <${id}>`,
        `AWS/Lambda Throttles FunctionName <${id}>`,
      ]),
    ];
    expect(expected.filter((m) => !drawn.includes(m))).toEqual([]);
  });

  test('it points the operator at the explanations', () => {
    const texts = body.widgets.filter((w) => w.type === 'text').map((w) => w.properties.markdown as string);
    expect(texts.some((t) => t.includes('docs/deploy.md#operating'))).toBe(true);
  });
});

test('docs/deploy.md has the section the alarms point at, naming every alarm', () => {
  const deploy = readFileSync(path.join(__dirname, '../../../docs/deploy.md'), 'utf8');
  expect(deploy).toMatch(/^## Operating$/m);
  const start = deploy.indexOf('## Operating');
  const operating = deploy.slice(start, deploy.indexOf('\n## ', start + 1));
  const named = new Set(alarms.map((a) => (a.AlarmName as string).replace('PublicTrustVerificationService-', '').replace(new RegExp(`^(${lambdaOps.map((op) => op.operationId).join('|')})-`), '<operationId>-')));
  expect([...named].filter((name) => !operating.includes(name))).toEqual([]);
});
