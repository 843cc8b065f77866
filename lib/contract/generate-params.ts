/**
 * Parameter validators generated from the contract table. A Lambda that only checks a path or
 * query parameter should not load zod and every contract schema to do it (zod alone is ~90 KiB
 * of a bundle and several milliseconds of cold start), so each operation's parameter schemas are
 * compiled here, at build time, into plain functions with no imports
 * (functions/generated/params.ts). The table stays the one source of truth: the generated file
 * is committed, `npm run generate` rewrites it, and a test fails when it differs from what this
 * generator makes of the current table, or when a generated check and its zod schema disagree.
 *
 * Only the schema shapes parameters use are compiled (strings with length and pattern checks,
 * ISO date-times, coerced integers with bounds, enums); any other shape stops the generator
 * instead of being approximated.
 */
import type { Operation } from '../../functions/contract/operation';

/** Where the generated module lives (relative to the repository root). */
export const GENERATED_PARAMS_FILE = 'functions/generated/params.ts';

/** What the generators read of a zod check's definition (zod 4's `_zod.def`). */
export interface ZodCheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
}

/** What the generators read of a zod schema's definition (zod 4's `_zod.def`). */
export interface ZodDef {
  type: string;
  coerce?: boolean;
  format?: string;
  pattern?: RegExp;
  entries?: Record<string, string | number>;
  checks?: { _zod: { def: ZodCheckDef } }[];
}

interface Compiled {
  /** The TypeScript type of the checked value. */
  type: string;
  /** Statements over `v` (the raw string) that `return fail(...)` or `return { value: ... }`. */
  body: string[];
}

const lit = (value: unknown) => JSON.stringify(value);

/** A regular expression literal with the same source and flags. */
function regexLiteral(pattern: RegExp): string {
  if (pattern.flags.replace(/[u]/g, '') !== '') throw new Error(`pattern /${pattern.source}/${pattern.flags}: only the u flag is supported`);
  return `/${pattern.source}/${pattern.flags}`;
}

function compileString(def: ZodDef, where: string): Compiled {
  const body: string[] = [];
  if (def.format !== undefined) {
    // zod's string formats (z.iso.datetime and friends) are a regular expression check.
    if (!def.pattern) throw new Error(`${where}: string format '${def.format}' without a pattern`);
    body.push(`if (!${regexLiteral(def.pattern)}.test(v)) return fail(${lit(formatMessage(def.format))});`);
  }
  for (const { _zod: { def: c } } of def.checks ?? []) {
    switch (c.check) {
      case 'min_length':
        body.push(`if (v.length < ${c.minimum}) return fail(${lit(`must be at least ${c.minimum} characters long`)});`);
        break;
      case 'max_length':
        body.push(`if (v.length > ${c.maximum}) return fail(${lit(`must be at most ${c.maximum} characters long`)});`);
        break;
      case 'string_format':
        if (c.format !== 'regex' || !c.pattern) throw new Error(`${where}: string format check '${c.format}' is not supported`);
        body.push(`if (!${regexLiteral(c.pattern)}.test(v)) return fail(${lit(`must match ${c.pattern.source}`)});`);
        break;
      default:
        throw new Error(`${where}: string check '${c.check}' is not supported`);
    }
  }
  body.push('return { value: v };');
  return { type: 'string', body };
}

function formatMessage(format: string): string {
  return format === 'datetime' ? 'must be an RFC 3339 date-time with a time zone offset (Z or +hh:mm)' : `must be a valid ${format}`;
}

function compileNumber(def: ZodDef, where: string): Compiled {
  if (!def.coerce) throw new Error(`${where}: a number parameter must be coerced (parameters arrive as strings)`);
  // z.coerce.number() is Number(input); zod then refuses NaN and infinities.
  const body = ['const n = Number(v);', `if (!Number.isFinite(n)) return fail(${lit('must be a number')});`];
  for (const { _zod: { def: c } } of def.checks ?? []) {
    switch (c.check) {
      case 'number_format':
        if (c.format !== 'safeint') throw new Error(`${where}: number format '${c.format}' is not supported`);
        body.push(`if (!Number.isSafeInteger(n)) return fail(${lit('must be an integer')});`);
        break;
      case 'greater_than':
        body.push(`if (n ${c.inclusive ? '<' : '<='} ${c.value}) return fail(${lit(`must be ${c.inclusive ? 'at least' : 'greater than'} ${c.value}`)});`);
        break;
      case 'less_than':
        body.push(`if (n ${c.inclusive ? '>' : '>='} ${c.value}) return fail(${lit(`must be ${c.inclusive ? 'at most' : 'less than'} ${c.value}`)});`);
        break;
      default:
        throw new Error(`${where}: number check '${c.check}' is not supported`);
    }
  }
  body.push('return { value: n };');
  return { type: 'number', body };
}

function compileEnum(def: ZodDef, where: string): Compiled {
  const values = Object.values(def.entries ?? {});
  if (values.length === 0 || values.some((x) => typeof x !== 'string')) throw new Error(`${where}: only string enums are supported`);
  if ((def.checks ?? []).length > 0) throw new Error(`${where}: checks on an enum are not supported`);
  return {
    type: values.map(lit).join(' | '),
    body: [
      `if (!(${lit(values)} as readonly string[]).includes(v)) return fail(${lit(`must be one of ${values.join(', ')}`)});`,
      `return { value: v as ${values.map(lit).join(' | ')} };`,
    ],
  };
}

function compile(schema: unknown, where: string): Compiled & { description: string } {
  const zod = (schema as { _zod?: { def: ZodDef } })._zod;
  if (!zod) throw new Error(`${where}: not a zod schema`);
  const description = (schema as { description?: string }).description ?? '';
  const def = zod.def;
  switch (def.type) {
    case 'string':
      return { ...compileString(def, where), description };
    case 'number':
      return { ...compileNumber(def, where), description };
    case 'enum':
      return { ...compileEnum(def, where), description };
    default:
      throw new Error(`${where}: parameters of type '${def.type}' are not supported by the generator`);
  }
}

/** The generated module's source for the given operations (those that declare parameters). */
export function generateParamValidators(operations: readonly Operation[]): string {
  const out: string[] = [
    '// Generated by `npm run generate` (lib/contract/generate-params.ts) from the contract table',
    '// (functions/contract/operations). Do not edit: change the table and regenerate.',
    '',
    '/** A checked parameter value, or why the raw value is refused. */',
    'export type Checked<T> = { value: T; why?: undefined } | { why: string };',
    '',
    '/** One parameter of one operation: its contract description and its check. */',
    'export interface ParamValidator<T> {',
    '  readonly description: string;',
    '  check(v: string): Checked<T>;',
    '}',
    '',
    'const fail = (why: string): { why: string } => ({ why });',
  ];
  for (const op of operations) {
    const params = { ...op.pathParams, ...op.queryParams };
    if (Object.keys(params).length === 0) continue;
    out.push('', `/** ${op.method} ${op.path} */`, `export const ${op.operationId}Params = {`);
    for (const [name, schema] of Object.entries(params)) {
      const c = compile(schema, `${op.operationId} parameter '${name}'`);
      out.push(
        `  ${name}: {`,
        `    description: ${lit(c.description)},`,
        `    check(v: string): Checked<${c.type}> {`,
        ...c.body.map((line) => `      ${line}`),
        '    },',
        `  } satisfies ParamValidator<${c.type}>,`,
      );
    }
    out.push('};');
  }
  return `${out.join('\n')}\n`;
}
