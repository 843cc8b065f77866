import type { CfnTemplate } from './cloud-assembly';
import type { IntrinsicResolver } from './intrinsics';

/** A resource of the template the runner does not bring up, and why nothing is missing for it. */
export interface NotEmulated {
  type: string;
  logicalId: string;
  reason: string;
}

/** Why a type the runner does not emulate needs nothing here. */
const NOT_EMULATED_REASONS: Record<string, string> = {
  'AWS::Logs::LogGroup': 'log lines are printed here instead, with the function\'s name',
  'AWS::ApiGateway::Account': 'an account-wide API Gateway setting',
  'AWS::CDK::Metadata': 'CDK\'s own metadata',
  'AWS::Lambda::LayerVersion': 'a layer of a function that does not run here',
  'AWS::CloudWatch::Alarm': 'metrics and alarms are not emulated',
  'AWS::CloudWatch::Dashboard': 'metrics and dashboards are not emulated',
  'AWS::SNS::Topic': 'notifications are not emulated',
  'AWS::SNS::Subscription': 'notifications are not emulated',
  'AWS::SNS::TopicPolicy': 'notifications are not emulated',
  'AWS::CloudWatch::CompositeAlarm': 'metrics and alarms are not emulated',
  'AWS::Logs::MetricFilter': 'metrics and alarms are not emulated',
  'AWS::ApplicationAutoScaling::ScalableTarget': 'the embedded store meters no capacity: a provisioned table takes every request at its first capacity',
  'AWS::ApplicationAutoScaling::ScalingPolicy': 'the embedded store meters no capacity: a provisioned table takes every request at its first capacity',
};

/** The resources whose type none of `provisioned` is (those whose Condition does not hold aside), each with why it needs nothing here. */
export function unprovisionedResources(template: CfnTemplate, resolver: IntrinsicResolver, provisioned: readonly string[]): NotEmulated[] {
  const taken = new Set(provisioned);
  return Object.entries(template.Resources)
    .filter(([, resource]) => !resource.Condition || resolver.condition(resource.Condition))
    .filter(([, resource]) => !taken.has(resource.Type))
    .map(([logicalId, resource]) => ({ type: resource.Type, logicalId, reason: NOT_EMULATED_REASONS[resource.Type] ?? 'not emulated' }));
}

/** The not-emulated resources, one line per type and reason. */
export function describeNotEmulated(list: readonly NotEmulated[]): string[] {
  const groups = new Map<string, string[]>();
  for (const item of list) {
    const key = `${item.type}: ${item.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), item.logicalId]);
  }
  return [...groups].map(([key, ids]) => (ids.length > 2 ? `${key} (${ids.length} resources)` : `${key} (${ids.join(', ')})`));
}
