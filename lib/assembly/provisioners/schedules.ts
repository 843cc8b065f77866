import { resourcesOfType } from '../cloud-assembly';
import { rateMs, scheduledEvent } from '../lambda/event-sources';
import type { Deployment, Provisioner } from './provisioner';

/**
 * AWS::Events::Rule with a rate() schedule: its targets invoked asynchronously on each tick (if the
 * function's policy lets EventBridge invoke it for this rule), on a timer of its own unless the
 * caller fires them (fireSchedules). cron() schedules and event patterns are named as not emulated.
 */
export const schedules: Provisioner = {
  types: ['AWS::Events::Rule'],
  async provision(deployment) {
    const { template, resolver, options, notEmulated, closers } = deployment;
    for (const [id, resource] of resourcesOfType(template, 'AWS::Events::Rule')) {
      const props = resolver.resolve(resource.Properties ?? {}) as Record<string, any>;
      const every = typeof props.ScheduleExpression === 'string' ? rateMs(props.ScheduleExpression) : null;
      if (props.State === 'DISABLED') continue;
      if (every === null) {
        notEmulated.push({ type: 'AWS::Events::Rule', logicalId: id, reason: `${props.ScheduleExpression ?? 'an event pattern'}: only rate() schedules run here` });
        continue;
      }
      const fire = ruleTick(deployment, id, (props.Targets ?? []) as RuleTarget[]);
      deployment.schedules.push(fire);
      if (options.scheduleTimers !== false) {
        const timer = setInterval(() => void fire(), every);
        timer.unref();
        closers.add(() => clearInterval(timer));
      }
    }
  },
};

interface RuleTarget {
  Arn: string;
  Input?: string;
}

/** One tick of a rule: each target that runs here and may be invoked by it gets the rule's event (or its Input). */
function ruleTick({ resolver, account, functions, services, log }: Deployment, id: string, targets: RuleTarget[]): () => Promise<void> {
  const ruleArn = resolver.getAtt(id, 'Arn');
  return async () => {
    for (const target of targets) {
      const fn = functions.find(target.Arn);
      if (!fn) continue;
      const { definition } = fn.host;
      const permission = await services.iam.evaluator.decide(
        { kind: 'service', service: 'events.amazonaws.com' },
        { action: 'lambda:InvokeFunction', resource: definition.arn, context: { 'aws:SourceArn': ruleArn, 'aws:SourceAccount': account.account } },
      );
      if (!permission.allowed) {
        log(`EventBridge  rule ${id} may not invoke ${definition.name}: ${permission.message}`);
        continue;
      }
      fn.asyncInvoker.invoke(target.Input ? JSON.parse(target.Input) : scheduledEvent(ruleArn, account.account, account.region));
    }
  };
}
