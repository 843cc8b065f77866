import { checkBody, type BodyIssue, type BodyPlan } from '../contract/body-check';
import { BODY_RULES } from '../contract/body-rules';

/**
 * Reading JSON request bodies (the sandbox's inputs, the receivers' events): JSON text -> a value
 * checked against the plan generated from its contract schema, or the reasons it was refused, each
 * naming the field (dotted path and RFC 6901 JSON Pointer). Pure: the handler turns a refusal into
 * a 422 problem.
 */

export interface FieldIssue {
  /** Dotted path with [index] for arrays, e.g. policy.rules[2].when; '(body)' for the body itself. */
  field: string;
  /** RFC 6901 JSON Pointer to the same place ('' for the body). */
  pointer: string;
  detail: string;
}

/** A body that cannot be read as its schema says. Carries every issue found, the first one names the field. */
export class JsonInputError extends Error {
  constructor(readonly issues: FieldIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.detail}`).join('; '));
    this.name = 'JsonInputError';
  }
}

/**
 * Nesting deeper than this is refused before any evaluation: no input of this service needs it, and
 * recursive work (canonical JSON, rule evaluation) on a hostile depth would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 32;

type PathSegment = PropertyKey;

export function fieldName(path: readonly PathSegment[]): string {
  if (path.length === 0) return '(body)';
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

export function jsonPointer(path: readonly PathSegment[]): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export function issueAt(path: readonly PathSegment[], detail: string): FieldIssue {
  return { field: fieldName(path), pointer: jsonPointer(path), detail };
}

/** Walks parsed JSON without recursion: depth limit, and strings that are well-formed Unicode (no lone surrogates). */
function structuralIssue(value: unknown): FieldIssue | null {
  const stack: { value: unknown; path: PathSegment[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!;
    if (path.length > MAX_JSON_DEPTH) return issueAt(path.slice(0, MAX_JSON_DEPTH), `nesting deeper than ${MAX_JSON_DEPTH} levels is not accepted`);
    if (typeof node === 'string') {
      if (!(node as unknown as { isWellFormed(): boolean }).isWellFormed()) return issueAt(path, 'contains a lone UTF-16 surrogate (not valid Unicode)');
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => stack.push({ value: item, path: [...path, index] }));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        if (!(key as unknown as { isWellFormed(): boolean }).isWellFormed()) return issueAt(path, 'has a member name with a lone UTF-16 surrogate');
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return null;
}

/** A JSON object's member names while the scan is inside it, or an array's position. */
interface Container {
  /** Member names seen so far; null for an array. */
  names: Set<string> | null;
  /** The member (object) or index (array) the scan is in. */
  at: PathSegment;
  /** In an object: the next string is a member name (after '{' or ','), not a value. */
  expectName: boolean;
}

/**
 * The first member name given twice in one object of `text`, as a path (the object's path and the
 * name), or null. I-JSON (RFC 7493), which RFC 8785's canonical form assumes, requires member
 * names to be unique; JSON.parse keeps the last of them without a word, so a body read here and
 * one read by a parser that keeps the first would be two different events.
 *
 * `text` must be JSON that JSON.parse accepted: the scan only follows its structure (strings,
 * braces, brackets, commas) and compares the names as JSON.parse decodes them ("a" and "\u0061"
 * are the same name). No JSON parser on npm that reports duplicates is small and fast enough for
 * every receiver and sandbox function (a full parser in JavaScript replaces V8's native one and
 * weighs kilobytes; lossless-json lets a repeated name through when the values are equal), so this
 * scan sits beside JSON.parse; test/unit/json-duplicates.test.ts holds it to JSON.parse on seeded
 * random documents with and without repeated names.
 */
export function duplicateMemberName(text: string): PathSegment[] | null {
  const open: Container[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: find its closing quote, stepping over escapes.
      let end = i + 1;
      let escaped = false;
      for (let d = text.charCodeAt(end); d !== 0x22; d = text.charCodeAt(++end)) {
        if (d === 0x5c) {
          escaped = true;
          end++;
        }
      }
      const inside = open[open.length - 1];
      if (inside?.names && inside.expectName) {
        const name = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        inside.at = name;
        if (inside.names.has(name)) return open.map((container) => container.at);
        inside.names.add(name);
        inside.expectName = false;
      }
      i = end;
    } else if (c === 0x7b) {
      open.push({ names: new Set(), at: '', expectName: true });
    } else if (c === 0x5b) {
      open.push({ names: null, at: 0, expectName: false });
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
    } else if (c === 0x2c) {
      const inside = open[open.length - 1];
      if (inside.names) inside.expectName = true;
      else inside.at = (inside.at as number) + 1;
    }
  }
  return null;
}

const TYPE_NAMES: Record<string, string> = { int: 'a whole number', number: 'a number', string: 'a string', boolean: 'true or false', object: 'a JSON object', array: 'an array' };

/** What a value of the wrong type is, in the words TYPE_NAMES gives the types it should have been. */
function received(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'number') return `${input}`;
  if (typeof input === 'object') return 'a JSON object';
  return `a ${typeof input}`;
}

/** One issue (zod's, or the same from a generated body check) in words a caller can act on. */
function issueDetail(issue: BodyIssue): string {
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type':
      if (typeof input === 'number' && !Number.isFinite(input)) return 'is a number too large to represent';
      return `must be ${TYPE_NAMES[issue.expected!] ?? issue.expected}, not ${received(input)}`;
    case 'invalid_format':
      if (issue.format === 'datetime') return 'must be an RFC 3339 date-time with an offset, e.g. 2026-01-01T00:00:00Z';
      if (issue.format === 'regex') return `must match ${(issue as { pattern?: string }).pattern}`;
      return `must be a valid ${issue.format}`;
    case 'too_big':
      return issue.origin === 'array' ? `must have at most ${issue.maximum} items` : issue.origin === 'string' ? `must be at most ${issue.maximum} characters` : `must be at most ${issue.maximum}`;
    case 'too_small':
      return issue.origin === 'array' ? `must have at least ${issue.minimum} item(s)` : issue.origin === 'string' ? `must be at least ${issue.minimum} character(s)` : `must be at least ${issue.minimum}`;
    case 'invalid_value':
      return `must be one of ${issue.values!.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message ?? 'is invalid';
  }
}

function describeIssue(issue: BodyIssue): FieldIssue[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys!.map((key) => issueAt([...issue.path, key], 'is not a known field'));
  }
  if (issue.code !== 'custom' && 'input' in issue && issue.input === undefined) {
    return [issueAt(issue.path, 'is required')];
  }
  if (issue.code === 'invalid_union') {
    // A union failing entirely: report the closest branch (the one whose issues reach deepest).
    const branches = issue.errors!.filter((branch) => branch.length > 0);
    if (branches.length > 0) {
      const depth = (branch: BodyIssue[]) => Math.max(...branch.map((i) => i.path.length));
      const best = branches.reduce((a, b) => (depth(b) > depth(a) ? b : a));
      if (depth(best) > 0) return best.flatMap((i) => describeIssue({ ...i, path: [...issue.path, ...i.path] }));
    }
    return [issueAt(issue.path, 'matches none of the accepted forms')];
  }
  return [issueAt(issue.path, issueDetail(issue))];
}

/** Issues (zod's, or a generated body check's) as the fields they name. */
export function fieldIssues(issues: readonly BodyIssue[]): FieldIssue[] {
  return issues.flatMap(describeIssue);
}

/** Checks a value against a plan generated from a contract schema (functions/generated/bodies.ts); throws JsonInputError naming each failing field. */
export function checkAgainst<T>(plan: BodyPlan<T>, value: unknown): T {
  const checked = checkBody(plan, value, BODY_RULES);
  if (checked.issues.length > 0) throw new JsonInputError(fieldIssues(checked.issues));
  return checked.value;
}

/**
 * Parses a request body as JSON and checks it with the plan generated from its contract schema
 * (the same issues as the schema, without loading zod). A member name given twice in one object
 * is refused, naming it. `optional`: an absent or blank body stands
 * for {} (the test clock's body is optional). The body is read as JSON whatever its
 * Content-Type says, so `curl -d` works as well as a client that labels its JSON.
 */
export function parseJsonBody<T>(body: string | null, plan: BodyPlan<T>, options: { optional: boolean }): T {
  let value: unknown;
  if (body === null || body.trim() === '') {
    if (!options.optional) throw new JsonInputError([issueAt([], 'a JSON object body is required')]);
    value = {};
  } else {
    try {
      value = JSON.parse(body);
    } catch (error) {
      throw new JsonInputError([issueAt([], `is not valid JSON (${(error as Error).message})`)]);
    }
    const duplicate = duplicateMemberName(body);
    if (duplicate) {
      throw new JsonInputError([issueAt(duplicate, `is given more than once in its object: member names must be unique (I-JSON, RFC 7493), or readers disagree on which one counts`)]);
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new JsonInputError([issueAt([], `must be a JSON object, not ${what}`)]);
  }
  const structural = structuralIssue(value);
  if (structural) throw new JsonInputError([structural]);
  return checkAgainst(plan, value);
}
