import jsonLogic from 'json-logic-js';
import { TRUST_FACT_NAMES } from '../../contract/sandbox-values';
import type { TrustFacts as Facts } from '../../contract/schemas/sandbox';
import { issueAt, type FieldIssue } from '../json-input';

/**
 * Rule conditions are JSON Logic (jsonlogic.com), evaluated by json-logic-js. Before any
 * evaluation a condition is checked against two allowlists, so a policy can only compare and
 * combine the documented facts:
 *   - operators: comparison, boolean logic, membership, arithmetic and concatenation. Left out:
 *     `log` (writes to the console), `substr`, `missing`/`missing_some` (every fact is always
 *     present) and the iterating operators (`map`, `filter`, `reduce`, `all`, `some`, `none`),
 *     so evaluation cost is linear in the size of the policy;
 *   - variables: `var` takes a literal fact name (see TrustFacts), never a computed path, so a
 *     rule cannot walk into anything but the facts.
 * A literal object in a condition must be an operation (exactly one key); a typo therefore
 * fails validation with its location instead of evaluating to a silent constant.
 */
export const LOGIC_OPERATORS = [
  '==', '===', '!=', '!==', '!', '!!', 'and', 'or', 'if', '?:',
  '>', '>=', '<', '<=', 'in', 'cat', '+', '-', '*', '/', '%', 'min', 'max', 'merge', 'var',
] as const;
const OPERATORS = new Set<string>(LOGIC_OPERATORS);

export const FACT_NAMES: readonly (keyof Facts)[] = TRUST_FACT_NAMES;
const FACTS = new Set<string>(FACT_NAMES);

/** Conditions of one policy together may not exceed this many nodes. */
export const MAX_POLICY_NODES = 2000;

type Path = (string | number)[];

function checkVar(args: unknown, path: Path, issues: FieldIssue[]): void {
  const list = Array.isArray(args) ? args : [args];
  const [name, fallback, ...rest] = list;
  if (typeof name !== 'string' || !FACTS.has(name)) {
    issues.push(issueAt(path, `var must name a fact literally, one of: ${FACT_NAMES.join(', ')}; got ${JSON.stringify(name) ?? 'nothing'}`));
  }
  if (rest.length > 0 || (fallback !== undefined && fallback !== null && typeof fallback === 'object')) {
    issues.push(issueAt(path, 'var takes a fact name and at most one literal default'));
  }
}

/**
 * Checks one condition; returns the number of nodes it holds. Issues carry the path of the
 * offending node below `path` (e.g. policy.rules[1].when.and[0]).
 */
export function checkCondition(expression: unknown, path: Path, issues: FieldIssue[]): number {
  let nodes = 0;
  const stack: { node: unknown; path: Path }[] = [{ node: expression, path }];
  while (stack.length > 0) {
    const { node, path: at } = stack.pop()!;
    nodes += 1;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) stack.push({ node: node[index], path: [...at, index] });
      continue;
    }
    const keys = Object.keys(node);
    if (keys.length !== 1) {
      issues.push(issueAt(at, `an object in a condition must be one operation ({"operator": arguments}); found ${keys.length} keys`));
      continue;
    }
    const operator = keys[0];
    const args = (node as Record<string, unknown>)[operator];
    if (!OPERATORS.has(operator)) {
      issues.push(issueAt([...at, operator], `operator '${operator}' is not allowed; allowed: ${LOGIC_OPERATORS.join(' ')}`));
      continue;
    }
    if (operator === 'var') {
      checkVar(args, [...at, operator], issues);
      continue;
    }
    // Pushed last-first, so issues come out in document order.
    if (Array.isArray(args)) for (let index = args.length - 1; index >= 0; index--) stack.push({ node: args[index], path: [...at, operator, index] });
    else stack.push({ node: args, path: [...at, operator] });
  }
  return nodes;
}

/** Evaluates a checked condition against the facts; JSON Logic truthiness decides. */
export function holds(expression: unknown, facts: Facts): boolean {
  return jsonLogic.truthy(jsonLogic.apply(expression as Parameters<typeof jsonLogic.apply>[0], facts));
}
