import { Annotations, Aws, CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { IRestApi } from 'aws-cdk-lib/aws-apigateway';
import { AlarmStatusWidget, ComparisonOperator, Dashboard, GraphWidget, Metric, TextWidget, TreatMissingData, type IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { MonitoringFacade, SnsAlarmActionStrategy, type AlarmWithAnnotation, type CustomAlarmThreshold, type IDynamicDashboardFactory, type Monitoring } from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../../functions/contract/service';
import { PENDING_AGE_METRIC } from '../../functions/ledger-writer/pending-age';
import { PENDING_INDEX } from '../../functions/store/layout';

export interface OperatorAlarmsProps {
  /** The Lambda operations' functions, by operationId. */
  functions: ReadonlyMap<string, IFunction>;
  sequencer: { function: IFunction; deadLetterQueue: IQueue };
  api: IRestApi;
  stageName: string;
  table: ITable;
  /** An existing topic to notify (context alarmTopicArn); empty: the stack's own topic. */
  alarmTopicArn: string;
  /** Subscribed to the stack's own topic (context alarmEmail); empty: no subscription. */
  alarmEmail: string;
}

/** Where each alarm is explained, with what to do; every alarm's description names it. */
const OPERATING_GUIDE = 'docs/deploy.md#operating';

interface Rule {
  /** Alarm above this value (seconds, messages, a rate from 0 to 1, or a count per period). */
  threshold: number;
  periodMinutes: number;
  /** The alarm fires when `datapoints` of the last `evaluationPeriods` periods breach. */
  evaluationPeriods: number;
  datapoints: number;
  missing: TreatMissingData;
  /** What the alarm's notification says: what happened and the first thing to look at. */
  description: string;
}

/** The figures behind each alarm; docs/deploy.md#operating gives the reasons and what to do. */
const ALARM_RULES = {
  oldestPending: {
    threshold: 300,
    // The sequencer publishes after every tick (every minute) and every run that looked at what waits (at least every 90 s while the stream wakes it): five silent minutes mean it is not running.
    periodMinutes: 1,
    evaluationPeriods: 5,
    datapoints: 1,
    missing: TreatMissingData.BREACHING,
    description:
      'Events are stuck: the oldest one waiting for the sequencer has waited more than 5 minutes, or the sequencer published no figure for 5 minutes (it is not running). ' +
      'Look at the sequencer\'s errors and log group.',
  },
  deadLetters: {
    threshold: 0,
    // An idle queue publishes no figures: missing means empty.
    periodMinutes: 1,
    evaluationPeriods: 1,
    datapoints: 1,
    missing: TreatMissingData.NOT_BREACHING,
    description:
      'A sequencer run or stream batch failed and was set down in the dead-letter queue (its events stay pending and the schedule retries them). ' +
      'Read the message and the sequencer\'s log, fix the cause, then purge the queue.',
  },
  api5xxRate: {
    threshold: 0.05,
    periodMinutes: 5,
    evaluationPeriods: 3,
    datapoints: 2,
    missing: TreatMissingData.NOT_BREACHING,
    description: 'More than 5% of the API\'s answers were 5XX in two of the last three 5-minute periods: reads are failing. Look at the functions\' errors and the table.',
  },
  functionErrors: {
    threshold: 0,
    periodMinutes: 5,
    evaluationPeriods: 1,
    datapoints: 1,
    missing: TreatMissingData.NOT_BREACHING,
    description: 'The function failed (an uncaught error, a timeout or a crash; expected failures are answered as problem details and do not count). Read its log group.',
  },
  functionThrottles: {
    threshold: 0,
    periodMinutes: 5,
    evaluationPeriods: 1,
    datapoints: 1,
    missing: TreatMissingData.NOT_BREACHING,
    description: 'Invocations of the function were throttled: the account\'s Lambda concurrency is exhausted. Look at the account\'s concurrent executions and its limit.',
  },
  sequencerThrottles: {
    threshold: 0,
    // One run at a time is its design (a tick that arrives during a run waits): only lasting throttling alarms.
    periodMinutes: 5,
    evaluationPeriods: 3,
    datapoints: 3,
    missing: TreatMissingData.NOT_BREACHING,
    description: 'The sequencer was throttled in three 5-minute periods in a row: its runs follow each other without pause. Look at the pending event age and the run durations.',
  },
  tableThrottles: {
    threshold: 0,
    periodMinutes: 5,
    evaluationPeriods: 1,
    datapoints: 1,
    missing: TreatMissingData.NOT_BREACHING,
    description: 'DynamoDB throttled requests (a hot partition, or traffic beyond what on-demand capacity had adapted to). Reads answer 503 and writes are retried meanwhile.',
  },
} as const satisfies Record<string, Rule>;

/** The library's alarm settings for a rule. */
function thresholdOf(rule: Rule): CustomAlarmThreshold {
  return {
    period: Duration.minutes(rule.periodMinutes),
    evaluationPeriods: rule.evaluationPeriods,
    datapointsToAlarm: rule.datapoints,
    treatMissingDataOverride: rule.missing,
    alarmDescriptionOverride: `${rule.description} (${OPERATING_GUIDE})`,
  };
}

/** The library makes no dashboard of its own: this construct lays the one dashboard out itself. */
const NO_LIBRARY_DASHBOARD: IDynamicDashboardFactory = { addDynamicSegment: () => undefined, getDashboard: () => undefined };

/**
 * What tells an operator that something is wrong (docs/deploy.md#operating): CloudWatch alarms on
 * the sequencer (the age of its oldest pending event, its dead-letter queue, errors, throttles),
 * the API (5XX rate), every operation's function (errors, throttles) and the table and its pending
 * index (throttled requests), all notifying one SNS topic on ALARM and on OK, and one dashboard
 * with every alarm's state and the graphs of their metrics.
 *
 * The alarms, their names and the sequencer's, API's and table's graphs come from
 * cdk-monitoring-constructs (cdklabs); the dashboard is laid out here so that the operations'
 * functions take two graphs (errors and throttles by function) instead of seven widgets each.
 */
export class OperatorAlarms extends Construct {
  readonly topic: ITopic;
  readonly facade: MonitoringFacade;
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperatorAlarmsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // One prefix for every alarm of the stack: unique in the account and region, and what the own topic's policy names.
    const alarmNamePrefix = stack.stackName;
    this.topic = props.alarmTopicArn ? Topic.fromTopicArn(this, 'Topic', props.alarmTopicArn) : this.ownTopic(alarmNamePrefix, props.alarmEmail);
    if (!props.alarmTopicArn && !props.alarmEmail) {
      Annotations.of(this).addInfo(
        `No alarmEmail or alarmTopicArn: the alarms notify a topic nobody is subscribed to yet (output AlarmTopicArn); subscribe to it, or deploy with one of them (${OPERATING_GUIDE}).`,
      );
    }

    const f = (this.facade = new MonitoringFacade(this, 'Monitoring', {
      alarmFactoryDefaults: {
        alarmNamePrefix,
        actionsEnabled: true,
        // ALARM, and back to OK: the operator also learns that it is over.
        action: new SnsAlarmActionStrategy({ onAlarmTopic: this.topic, onOkTopic: this.topic }),
        datapointsToAlarm: 1,
      },
      dashboardFactory: NO_LIBRARY_DASHBOARD,
    }));

    // The metric the sequencer publishes (functions/ledger-writer/pending-age.ts), as the alarm reads it.
    const pendingAgeMetric = new Metric({
      namespace: PENDING_AGE_METRIC.namespace,
      metricName: PENDING_AGE_METRIC.name,
      // Powertools Metrics adds the service dimension to every metric it writes.
      dimensionsMap: { service: SERVICE_NAME, [PENDING_AGE_METRIC.tableDimension]: props.table.tableName },
      statistic: 'Maximum',
      period: Duration.minutes(ALARM_RULES.oldestPending.periodMinutes),
      label: 'Oldest pending event (s)',
    });
    f.monitorCustom({
      alarmFriendlyName: 'Sequencer',
      humanReadableName: 'Events waiting for the sequencer',
      metricGroups: [
        {
          title: 'Oldest pending event (seconds waited)',
          metrics: [
            {
              metric: pendingAgeMetric,
              alarmFriendlyName: 'OldestPendingEvent',
              addAlarm: {
                Critical: { threshold: ALARM_RULES.oldestPending.threshold, comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD, ...thresholdOf(ALARM_RULES.oldestPending) },
              },
            },
          ],
        },
      ],
    });
    f.monitorSqsQueue({
      queue: props.sequencer.deadLetterQueue,
      alarmFriendlyName: 'SequencerDeadLetters',
      humanReadableName: 'Sequencer dead-letter queue',
      addQueueMaxSizeAlarm: { Critical: { maxMessageCount: ALARM_RULES.deadLetters.threshold, ...thresholdOf(ALARM_RULES.deadLetters) } },
    });
    f.monitorLambdaFunction({
      lambdaFunction: props.sequencer.function,
      alarmFriendlyName: 'Sequencer',
      humanReadableName: 'Sequencer function',
      addFaultCountAlarm: { Critical: { maxErrorCount: ALARM_RULES.functionErrors.threshold, ...thresholdOf(ALARM_RULES.functionErrors) } },
      addThrottlesCountAlarm: { Warning: { maxErrorCount: ALARM_RULES.sequencerThrottles.threshold, ...thresholdOf(ALARM_RULES.sequencerThrottles) } },
    });
    f.monitorApiGateway({
      api: props.api,
      apiStage: props.stageName,
      alarmFriendlyName: 'Api',
      humanReadableName: 'Public API',
      add5XXFaultRateAlarm: { Critical: { maxErrorRate: ALARM_RULES.api5xxRate.threshold, ...thresholdOf(ALARM_RULES.api5xxRate) } },
    });
    const throttledEvents = { Critical: { maxThrottledEventsThreshold: ALARM_RULES.tableThrottles.threshold, ...thresholdOf(ALARM_RULES.tableThrottles) } };
    f.monitorDynamoTable({
      table: props.table,
      alarmFriendlyName: 'RecordTable',
      humanReadableName: 'Record table',
      addReadThrottledEventsCountAlarm: throttledEvents,
      addWriteThrottledEventsCountAlarm: throttledEvents,
    });
    f.monitorDynamoTableGlobalSecondaryIndex({
      table: props.table,
      globalSecondaryIndexName: PENDING_INDEX.name,
      alarmFriendlyName: 'PendingIndex',
      humanReadableName: `Record table, index ${PENDING_INDEX.name}`,
      addReadThrottledEventsCountAlarm: throttledEvents,
      addWriteThrottledEventsCountAlarm: throttledEvents,
    });
    const infrastructure = f.createdMonitorings();
    for (const [operationId, fn] of props.functions) {
      f.monitorLambdaFunction({
          lambdaFunction: fn,
        alarmFriendlyName: operationId,
        humanReadableName: operationId,
        addFaultCountAlarm: { Critical: { maxErrorCount: ALARM_RULES.functionErrors.threshold, ...thresholdOf(ALARM_RULES.functionErrors) } },
        addThrottlesCountAlarm: { Critical: { maxErrorCount: ALARM_RULES.functionThrottles.threshold, ...thresholdOf(ALARM_RULES.functionThrottles) } },
      });
    }

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: stack.stackName, defaultInterval: Duration.hours(8) });
    this.dashboard.addWidgets(...this.overview(), ...infrastructure.flatMap((m: Monitoring) => m.widgets()), ...this.functionGraphs(props.functions));

    new CfnOutput(stack, 'AlarmTopicArn', { value: this.topic.topicArn, description: `Every alarm notifies this topic on ALARM and on OK (${OPERATING_GUIDE}).` });
    new CfnOutput(stack, 'DashboardName', { value: this.dashboard.dashboardName, description: 'The CloudWatch dashboard of every alarm and its metric.' });
  }

  /** Every alarm the stack creates. */
  alarms(): AlarmWithAnnotation[] {
    return this.facade.createdAlarms();
  }

  /** The dashboard's head: every alarm's state at a glance (the first place to look). */
  private overview(): IWidget[] {
    const alarms = this.alarms().map((a) => a.alarm);
    // An alarm status widget shows at most 100 alarms.
    const widgets: IWidget[] = [];
    for (let at = 0; at < alarms.length; at += 100) {
      const some = alarms.slice(at, at + 100);
      widgets.push(new AlarmStatusWidget({ alarms: some, width: 24, height: Math.ceil(some.length / 4) + 1, title: at === 0 ? 'Every alarm' : 'Every alarm (continued)' }));
    }
    return [new TextWidget({ markdown: `# Alarms\nWhat each one means and what to do: ${OPERATING_GUIDE}`, width: 24, height: 2 }), ...widgets];
  }

  /** Errors and throttles of every operation's function, one line each, against the alarms' period. */
  private functionGraphs(functions: ReadonlyMap<string, IFunction>): IWidget[] {
    const period = Duration.minutes(ALARM_RULES.functionErrors.periodMinutes);
    const each = (metric: (fn: IFunction, label: string) => Metric) => [...functions].map(([operationId, fn]) => metric(fn, operationId));
    return [
      new TextWidget({ markdown: '# Operations\nEach operation\'s function; any error or throttle raises its alarm.', width: 24, height: 2 }),
      new GraphWidget({ title: 'Errors by function', width: 12, height: 8, left: each((fn, label) => fn.metricErrors({ label, period, statistic: 'Sum' })) }),
      new GraphWidget({ title: 'Throttles by function', width: 12, height: 8, left: each((fn, label) => fn.metricThrottles({ label, period, statistic: 'Sum' })) }),
    ];
  }

  /**
   * The stack's own topic: TLS only, and this stack's CloudWatch alarms (by name prefix, in this
   * account and region) may publish to it. The allow is needed: a topic policy of the stack's own
   * replaces SNS's default one, and without it CloudWatch's publish would be refused. Not
   * KMS-encrypted: alarm notifications carry alarm names, states and metric values, nothing
   * confidential, and the AWS-managed SNS key cannot be used by CloudWatch at all.
   */
  private ownTopic(alarmNamePrefix: string, email: string): Topic {
    const topic = new Topic(this, 'Topic', { displayName: `${alarmNamePrefix} alarms`, enforceSSL: true });
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisStack',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:${alarmNamePrefix}-*` },
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        },
      }),
    );
    if (email) topic.addSubscription(new EmailSubscription(email));
    return topic;
  }
}
