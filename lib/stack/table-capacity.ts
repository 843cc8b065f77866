import type { Node } from 'constructs';

/**
 * The record table's capacity as a deployment chooses it through CDK context
 * (docs/deploy.md#the-tables-capacity): settings.ts reads it with the other settings.
 */

/** Read or write units a second that auto scaling keeps a provisioned table (or its index) between. */
export interface CapacityRange {
  min: number;
  max: number;
}

/**
 * On demand (the default): billed per request, nothing to plan, any rise taken at once up to the
 * table's quota. Provisioned: billed per unit-hour of capacity that auto scaling keeps at
 * `targetUtilizationPercent` of what is used, between each range's min and max (the table and its
 * pending index alike): under a steady load each unit used costs less than on demand
 * (docs/capacity.md#the-cost-model); a sudden rise beyond the capacity's burst is throttled until
 * scaling follows (minutes), and the receivers answer 503 meanwhile, so senders retry.
 */
export type TableCapacity = { mode: 'on-demand' } | { mode: 'provisioned'; read: CapacityRange; write: CapacityRange; targetUtilizationPercent: number };

const TABLE_CAPACITY_MODES = ['on-demand', 'provisioned'] as const;

/**
 * Provisioned capacity's defaults: from 5 units a second of each, for the table and for its index
 * (at least $4.75 a month of write capacity and $0.95 of read capacity, us-east-1), up to the
 * default table quota (40,000: a deployment that needs more asks for a higher quota first), scaled
 * to keep 70% of the capacity in use (the target DynamoDB's console proposes).
 */
export const PROVISIONED_DEFAULTS = { read: { min: 5, max: 40_000 }, write: { min: 5, max: 40_000 }, targetUtilizationPercent: 70 } as const;

/** `min-max` units a second (`-c tableWriteUnits=5-40000`). */
function asCapacityRange(key: string, value: unknown, fallback: CapacityRange): CapacityRange {
  if (value === undefined) return fallback;
  const match = /^(\d+)-(\d+)$/.exec(String(value).trim());
  const [min, max] = match ? [Number(match[1]), Number(match[2])] : [Number.NaN, Number.NaN];
  if (!match || min < 1 || max < min) throw new Error(`context '${key}' must be min-max units a second, from 1 and max not below min (e.g. 5-40000), not ${JSON.stringify(value)}`);
  return { min, max };
}

/** The record table's capacity: `-c tableCapacity=provisioned`, with `tableReadUnits`, `tableWriteUnits` and `tableTargetUtilization` (percent) beside it. */
export function tableCapacityFrom(node: Node): TableCapacity {
  const mode = (node.tryGetContext('tableCapacity') ?? 'on-demand') as TableCapacity['mode'];
  if (!TABLE_CAPACITY_MODES.includes(mode)) throw new Error(`context 'tableCapacity' must be one of ${TABLE_CAPACITY_MODES.join(', ')}, not ${JSON.stringify(mode)}`);
  const given = ['tableReadUnits', 'tableWriteUnits', 'tableTargetUtilization'].filter((key) => node.tryGetContext(key) !== undefined);
  if (mode === 'on-demand') {
    if (given.length > 0) throw new Error(`context '${given[0]}' sets provisioned capacity: it goes with tableCapacity=provisioned`);
    return { mode };
  }
  const target = node.tryGetContext('tableTargetUtilization');
  const targetUtilizationPercent = target === undefined ? PROVISIONED_DEFAULTS.targetUtilizationPercent : Number(target);
  // The range auto scaling's target tracking takes for DynamoDB (CDK checks the same).
  if (!Number.isInteger(targetUtilizationPercent) || targetUtilizationPercent < 10 || targetUtilizationPercent > 90) {
    throw new Error(`context 'tableTargetUtilization' must be a whole percent from 10 to 90, not ${JSON.stringify(target)}`);
  }
  return {
    mode,
    read: asCapacityRange('tableReadUnits', node.tryGetContext('tableReadUnits'), PROVISIONED_DEFAULTS.read),
    write: asCapacityRange('tableWriteUnits', node.tryGetContext('tableWriteUnits'), PROVISIONED_DEFAULTS.write),
    targetUtilizationPercent,
  };
}
