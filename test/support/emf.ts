/**
 * Reads CloudWatch embedded metric format (EMF) lines the way CloudWatch Logs does, following the
 * specification ("Specification: Embedded metric format", Amazon CloudWatch User Guide): the line is
 * one JSON object; `_aws` holds `Timestamp` (milliseconds since the epoch) and `CloudWatchMetrics`,
 * an array of metric directives, each with a `Namespace`, `Dimensions` (an array of dimension sets,
 * each an array of at most 30 names of top-level string members) and `Metrics` (an array of
 * `{ Name, Unit?, StorageResolution? }`, each naming a top-level member that holds a number or an
 * array of at most 100 numbers). A line that breaks a rule is refused with the rule, so a test sees
 * what CloudWatch would drop.
 */

/** The units CloudWatch accepts (MetricDatum.Unit). */
const UNITS = new Set([
  'Seconds', 'Microseconds', 'Milliseconds', 'Bytes', 'Kilobytes', 'Megabytes', 'Gigabytes', 'Terabytes', 'Bits', 'Kilobits', 'Megabits', 'Gigabits', 'Terabits',
  'Percent', 'Count', 'Bytes/Second', 'Kilobytes/Second', 'Megabytes/Second', 'Gigabytes/Second', 'Terabytes/Second', 'Bits/Second', 'Kilobits/Second',
  'Megabits/Second', 'Gigabits/Second', 'Terabits/Second', 'Count/Second', 'None',
]);

/** One metric value as CloudWatch would record it. */
export interface EmfMetric {
  namespace: string;
  name: string;
  unit: string;
  values: number[];
  /** One entry per dimension set: the dimensions' names and values. */
  dimensionSets: Array<Record<string, string>>;
  timestamp: number;
}

function refuse(rule: string): never {
  throw new Error(`not an embedded metric format document: ${rule}`);
}

/** The metrics an EMF line declares, or an error naming the rule it breaks. */
export function readEmfLine(line: string): EmfMetric[] {
  const root = JSON.parse(line) as Record<string, unknown>;
  if (!root || typeof root !== 'object' || Array.isArray(root)) refuse('the root is not an object');
  const meta = root._aws as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object') refuse('no _aws metadata object');
  if (typeof meta.Timestamp !== 'number' || !Number.isInteger(meta.Timestamp)) refuse('_aws.Timestamp is not a number of milliseconds');
  if (!Array.isArray(meta.CloudWatchMetrics)) refuse('_aws.CloudWatchMetrics is not an array');
  const metrics: EmfMetric[] = [];
  for (const directive of meta.CloudWatchMetrics as Array<Record<string, unknown>>) {
    const namespace = directive.Namespace;
    if (typeof namespace !== 'string' || namespace.length < 1 || namespace.length > 255) refuse('a Namespace is not a string of 1 to 255 characters');
    if (!Array.isArray(directive.Dimensions)) refuse('Dimensions is not an array');
    const dimensionSets = (directive.Dimensions as unknown[]).map((set) => {
      if (!Array.isArray(set) || set.length > 30) refuse('a dimension set is not an array of at most 30 names');
      return Object.fromEntries(
        set.map((name) => {
          if (typeof name !== 'string') refuse('a dimension name is not a string');
          const value = root[name];
          if (typeof value !== 'string') refuse(`dimension ${name} has no string member at the root`);
          return [name, value];
        }),
      );
    });
    if (!Array.isArray(directive.Metrics) || directive.Metrics.length > 100) refuse('Metrics is not an array of at most 100 definitions');
    for (const definition of directive.Metrics as Array<Record<string, unknown>>) {
      const name = definition.Name;
      if (typeof name !== 'string' || name.length < 1 || name.length > 1024) refuse('a metric Name is not a string of 1 to 1024 characters');
      const unit = definition.Unit ?? 'None';
      if (typeof unit !== 'string' || !UNITS.has(unit)) refuse(`metric ${name} has a unit CloudWatch does not know: ${JSON.stringify(unit)}`);
      const value = root[name];
      const values = Array.isArray(value) ? value : [value];
      if (values.length === 0 || values.length > 100 || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) refuse(`metric ${name} has no number (or array of up to 100 numbers) at the root`);
      metrics.push({ namespace, name, unit, values: values as number[], dimensionSets, timestamp: meta.Timestamp });
    }
  }
  return metrics;
}
