/**
 * Checks a parsed JSON request body against a plan generated at build time from the contract's
 * zod schema (functions/generated/bodies.ts, made by lib/contract/generate-bodies.ts), without
 * loading zod or the contract table: building the sandbox's zod schemas was most of a sandbox
 * function's cold start (bench/README.md).
 *
 * It reports what zod reports, issue for issue: the same codes, paths and details in the same
 * order, so that a refusal reads the same 422 problem details (functions/domain/json-input.ts
 * words them). The rules mirrored here are zod 4's: a value of the wrong type stops the checks of
 * its schema (length checks still run on anything with a length); other failed checks do not;
 * a schema's refinements run only when nothing before them stopped; strict objects report unknown
 * keys after their fields; an array longer than its maximum is refused before its items are read;
 * a union answers with its first accepting option, else with the one option whose failure did
 * not stop, else with every option's issues; a nullable schema lets null through and hands
 * anything else to its inner schema. test/unit/body-check.test.ts holds this to zod on
 * seeded random bodies.
 */

/** One check of a schema, in the order the schema declares them. */
export type BodyCheck =
  | { c: 'min_length'; n: number }
  | { c: 'max_length'; n: number }
  | { c: 'format'; format: string; pattern: string; flags: string }
  | { c: 'int' }
  | { c: 'min'; n: number; inclusive: boolean }
  | { c: 'max'; n: number; inclusive: boolean }
  /** A refinement by name (functions/contract/body-rules.ts): the same function zod runs. */
  | { c: 'rule'; name: string };

/** A schema, as data. */
export type PlanNode =
  | { t: 'object'; shape: [string, BodyPlan][]; unknownKeys: 'refuse' | 'keep'; checks?: BodyCheck[] }
  | { t: 'string'; checks?: BodyCheck[] }
  | { t: 'number'; checks?: BodyCheck[] }
  | { t: 'boolean' }
  | { t: 'enum'; values: (string | number | boolean | null)[] }
  | { t: 'literal'; values: (string | number | boolean | null)[] }
  | { t: 'array'; element: BodyPlan; checks?: BodyCheck[] }
  | { t: 'optional'; inner: BodyPlan }
  /** null, or what `inner` accepts (an event payload's previousState before the first state). */
  | { t: 'nullable'; inner: BodyPlan }
  | { t: 'unknown' }
  | { t: 'union'; options: BodyPlan[]; checks?: BodyCheck[] };

/** A plan whose checked value has the type T (the output type of the schema it was made from). */
export type BodyPlan<T = unknown> = PlanNode & { readonly __output?: T };

/** An issue in zod's form (the fields functions/domain/json-input.ts reads). */
export interface BodyIssue {
  code: string;
  path: PropertyKey[];
  input?: unknown;
  message?: string;
  expected?: string;
  format?: string;
  pattern?: string;
  origin?: string;
  minimum?: number;
  maximum?: number;
  inclusive?: boolean;
  values?: unknown[];
  keys?: string[];
  errors?: BodyIssue[][];
  /** false or absent: the issue stops the checks that follow (zod's `continue`). */
  continue?: boolean;
}

/** A refinement: the issues it finds in an otherwise valid value (paths relative to it). */
export type BodyRule = (value: never) => { path: PropertyKey[]; message: string }[];

interface Payload {
  value: unknown;
  issues: BodyIssue[];
}

const stops = (p: Payload, from = 0) => p.issues.slice(from).some((i) => i.continue !== true);
const stopsExplicitly = (p: Payload, from = 0) => p.issues.slice(from).some((i) => i.continue === false);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasLength = (v: unknown) => v !== null && v !== undefined && (v as { length?: unknown }).length !== undefined;
const lengthOrigin = (v: unknown) => (Array.isArray(v) ? 'array' : typeof v === 'string' ? 'string' : 'unknown');

/** Unicode code points of a string (surrogate pairs count once), as zod measures string lengths. */
function codePoints(s: string): number {
  let count = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

const patterns = new Map<string, RegExp>();
function regex(check: { pattern: string; flags: string }): RegExp {
  const key = `${check.flags}/${check.pattern}`;
  let re = patterns.get(key);
  if (!re) patterns.set(key, (re = new RegExp(check.pattern, check.flags)));
  return re;
}

function runCheck(check: BodyCheck, p: Payload, rules: Readonly<Record<string, BodyRule>>): void {
  const input = p.value as never;
  switch (check.c) {
    case 'min_length': {
      const units = (input as { length: number }).length;
      const length = typeof input === 'string' && units >= check.n && units < check.n * 2 ? codePoints(input) : units;
      // Not "at least", as zod words it: a `length` that is no number ({"length": {}}) is too small too.
      if (!(length >= check.n)) p.issues.push({ origin: lengthOrigin(input), code: 'too_small', minimum: check.n, inclusive: true, input, path: [], continue: true });
      return;
    }
    case 'max_length': {
      const units = (input as { length: number }).length;
      const length = typeof input === 'string' && units > check.n ? codePoints(input) : units;
      if (!(length <= check.n)) p.issues.push({ origin: lengthOrigin(input), code: 'too_big', maximum: check.n, inclusive: true, input, path: [], continue: true });
      return;
    }
    case 'format': {
      const re = regex(check);
      re.lastIndex = 0;
      if (!re.test(input)) p.issues.push({ origin: 'string', code: 'invalid_format', format: check.format, input, pattern: `/${check.pattern}/${check.flags}`, path: [], continue: true });
      return;
    }
    case 'int': {
      const n = input as number;
      if (!Number.isInteger(n)) p.issues.push({ expected: 'int', format: 'safeint', code: 'invalid_type', continue: false, input, path: [] });
      else if (!Number.isSafeInteger(n)) {
        p.issues.push(n > 0
          ? { input, code: 'too_big', maximum: Number.MAX_SAFE_INTEGER, origin: 'int', inclusive: true, path: [], continue: true }
          : { input, code: 'too_small', minimum: Number.MIN_SAFE_INTEGER, origin: 'int', inclusive: true, path: [], continue: true });
      }
      return;
    }
    case 'min':
      if (check.inclusive ? input < check.n : input <= check.n) p.issues.push({ origin: 'number', code: 'too_small', minimum: check.n, input, inclusive: check.inclusive, path: [], continue: true });
      return;
    case 'max':
      if (check.inclusive ? input > check.n : input >= check.n) p.issues.push({ origin: 'number', code: 'too_big', maximum: check.n, input, inclusive: check.inclusive, path: [], continue: true });
      return;
    case 'rule': {
      const rule = rules[check.name];
      if (!rule) throw new Error(`no body rule '${check.name}'`);
      for (const found of rule(input)) p.issues.push({ code: 'custom', input, path: found.path, message: found.message, continue: true });
      return;
    }
  }
}

function runChecks(checks: readonly BodyCheck[] | undefined, p: Payload, rules: Readonly<Record<string, BodyRule>>): void {
  let stopped = stops(p);
  for (const check of checks ?? []) {
    if (check.c === 'min_length' || check.c === 'max_length') {
      // Length checks run on anything with a length, even after a type mismatch, unless an issue stopped explicitly.
      if (stopsExplicitly(p) || !hasLength(p.value)) continue;
    } else if (stopped) continue;
    const before = p.issues.length;
    runCheck(check, p, rules);
    if (p.issues.length !== before && !stopped) stopped = stops(p, before);
  }
}

const prefixed = (key: PropertyKey, issues: BodyIssue[]) => issues.map((i) => ({ ...i, path: [key, ...i.path] }));

function parse(plan: BodyPlan, p: Payload, rules: Readonly<Record<string, BodyRule>>): Payload {
  const input = p.value;
  switch (plan.t) {
    case 'string':
      if (typeof input !== 'string') p.issues.push({ expected: 'string', code: 'invalid_type', input, path: [] });
      return p;
    case 'number':
      if (typeof input !== 'number' || !Number.isFinite(input)) p.issues.push({ expected: 'number', code: 'invalid_type', input, path: [] });
      return p;
    case 'boolean':
      if (typeof input !== 'boolean') p.issues.push({ expected: 'boolean', code: 'invalid_type', input, path: [] });
      return p;
    case 'enum':
    case 'literal':
      if (!plan.values.includes(input as never)) p.issues.push({ code: 'invalid_value', values: plan.values, input, path: [] });
      return p;
    case 'unknown':
      return p;
    case 'optional':
      return input === undefined ? p : run(plan.inner, p, rules);
    case 'nullable':
      // As zod: null passes untouched; anything else is the inner schema's, issues and all (its
      // invalid_value lists the inner values only, without null). A missing field is not null.
      return input === null ? p : run(plan.inner, p, rules);
    case 'array': {
      if (!Array.isArray(input)) {
        p.issues.push({ expected: 'array', code: 'invalid_type', input, path: [] });
        return p;
      }
      // An array over a leading maximum is refused before any item is read.
      for (const check of plan.checks ?? []) {
        if (check.c !== 'min_length' && check.c !== 'max_length') break;
        if (check.c === 'max_length' && input.length > check.n) {
          runCheck(check, p, rules);
          p.issues[p.issues.length - 1].continue = false;
          return p;
        }
      }
      const out: unknown[] = [];
      input.forEach((item, index) => {
        const r = run(plan.element, { value: item, issues: [] }, rules);
        p.issues.push(...prefixed(index, r.issues));
        out[index] = r.value;
      });
      p.value = out;
      return p;
    }
    case 'object': {
      if (!isObject(input)) {
        p.issues.push({ expected: 'object', code: 'invalid_type', input, path: [] });
        return p;
      }
      const out: Record<string, unknown> = {};
      for (const [key, field] of plan.shape) {
        if (key === '__proto__') continue;
        const present = key in input;
        const optional = field.t === 'optional';
        if (!present && optional) continue;
        const r = run(field, { value: input[key], issues: [] }, rules);
        p.issues.push(...prefixed(key, r.issues));
        if (!present) {
          if (r.issues.length === 0) p.issues.push({ code: 'invalid_type', expected: 'nonoptional', input: undefined, path: [key] });
          continue;
        }
        out[key] = r.value;
      }
      const declared = new Set(plan.shape.map(([key]) => key));
      const unknown: string[] = [];
      for (const key in input) {
        if (declared.has(key)) continue;
        if (plan.unknownKeys === 'refuse') unknown.push(key);
        else if (key !== '__proto__' && input[key] !== undefined) out[key] = input[key];
      }
      if (unknown.length > 0) p.issues.push({ code: 'unrecognized_keys', keys: unknown, input, path: [], continue: true });
      p.value = out;
      return p;
    }
    case 'union': {
      if (plan.options.length === 1) return run(plan.options[0], p, rules);
      const results = plan.options.map((option) => run(option, { value: input, issues: [] }, rules));
      const accepted = results.find((r) => r.issues.length === 0);
      if (accepted) return accepted;
      const unstopped = results.filter((r) => !stops(r));
      if (unstopped.length === 1) return unstopped[0];
      p.issues.push({ code: 'invalid_union', input, path: [], errors: results.map((r) => r.issues) });
      return p;
    }
  }
}

function run(plan: BodyPlan, p: Payload, rules: Readonly<Record<string, BodyRule>>): Payload {
  const parsed = parse(plan, p, rules);
  runChecks('checks' in plan ? plan.checks : undefined, parsed, rules);
  return parsed;
}

/** The checked value (as zod would output it) or every issue found. */
export function checkBody<T>(plan: BodyPlan<T>, value: unknown, rules: Readonly<Record<string, BodyRule>>): { value: T; issues: BodyIssue[] } {
  const r = run(plan, { value, issues: [] }, rules);
  return { value: r.value as T, issues: r.issues };
}
