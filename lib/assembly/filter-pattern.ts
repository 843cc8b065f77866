/**
 * Lambda event filtering (the FilterCriteria of an event source mapping), as the Lambda developer
 * guide's "filter rule syntax" describes it: a pattern mirrors the record's structure; at each leaf
 * an array of rules of which one must match (null, "", a value, equals-ignore-case, anything-but,
 * numeric comparisons, exists, prefix, suffix); fields are ANDed; "$or" takes alternatives. A
 * record passes the criteria when any of its filters matches. No library on npm implements these
 * rules (the EventBridge matchers that exist are Java or Python), so this is the small matcher
 * test/unit/filter-pattern.test.ts holds to the guide's documented examples.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: unknown): value is Record<string, Json> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Numeric rule: ["=", 100] or [">", 10, "<=", 20]. */
function numericMatches(value: Json, conditions: Json[]): boolean {
  if (typeof value !== 'number') return false;
  for (let i = 0; i < conditions.length; i += 2) {
    const bound = conditions[i + 1] as number;
    switch (conditions[i]) {
      case '=':
        if (!(value === bound)) return false;
        break;
      case '<':
        if (!(value < bound)) return false;
        break;
      case '<=':
        if (!(value <= bound)) return false;
        break;
      case '>':
        if (!(value > bound)) return false;
        break;
      case '>=':
        if (!(value >= bound)) return false;
        break;
      default:
        throw new Error(`unknown numeric operator ${JSON.stringify(conditions[i])}`);
    }
  }
  return true;
}

/** One rule against one present value (a scalar; arrays are tried element by element by the caller). */
function ruleMatches(rule: Json, value: Json): boolean {
  if (!isObject(rule)) return rule === value;
  const [operator, operand] = Object.entries(rule)[0] ?? [];
  switch (operator) {
    case 'prefix':
      return typeof value === 'string' && (isObject(operand) ? value.toLowerCase().startsWith(String(operand['equals-ignore-case']).toLowerCase()) : value.startsWith(String(operand)));
    case 'suffix':
      return typeof value === 'string' && (isObject(operand) ? value.toLowerCase().endsWith(String(operand['equals-ignore-case']).toLowerCase()) : value.endsWith(String(operand)));
    case 'equals-ignore-case':
      return typeof value === 'string' && value.toLowerCase() === String(operand).toLowerCase();
    case 'numeric':
      return numericMatches(value, operand as Json[]);
    case 'anything-but': {
      if (isObject(operand)) return !ruleMatches(operand, value);
      const excluded = Array.isArray(operand) ? operand : [operand];
      return !excluded.some((x) => x === value);
    }
    case 'exists':
      return operand === true;
    default:
      throw new Error(`unknown filter rule ${JSON.stringify(rule)}`);
  }
}

/** The rules of a leaf against the field's value (undefined: the field is absent). */
function leafMatches(rules: Json[], value: Json | undefined): boolean {
  if (value === undefined) return rules.some((rule) => isObject(rule) && rule.exists === false);
  const values = Array.isArray(value) ? value : [value];
  return rules.some((rule) => (isObject(rule) && rule.exists === false ? false : values.some((v) => ruleMatches(rule, v))));
}

/** Whether `record` matches one pattern (an object of fields; "$or" for alternatives). */
export function patternMatches(pattern: Record<string, Json>, record: Json | undefined): boolean {
  return Object.entries(pattern).every(([field, rule]) => {
    if (field === '$or') return (rule as Array<Record<string, Json>>).some((alternative) => patternMatches(alternative, record));
    const value = isObject(record) ? record[field] : undefined;
    if (Array.isArray(rule)) return leafMatches(rule, value);
    if (isObject(rule)) return patternMatches(rule, isObject(value) ? value : undefined);
    throw new Error(`a filter's field ${field} must hold an array of rules or a nested pattern`);
  });
}

/** FilterCriteria.Filters[].Pattern (JSON text), parsed once: a record passes when any filter matches; no filters pass everything. */
export function compileFilterCriteria(patterns: readonly string[]): (record: unknown) => boolean {
  if (patterns.length === 0) return () => true;
  const parsed = patterns.map((pattern) => JSON.parse(pattern) as Record<string, Json>);
  return (record) => parsed.some((pattern) => patternMatches(pattern, record as Json));
}

/** Whether `record` passes the filter criteria `patterns` (see compileFilterCriteria). */
export function filterCriteriaMatch(patterns: readonly string[], record: unknown): boolean {
  return compileFilterCriteria(patterns)(record);
}
