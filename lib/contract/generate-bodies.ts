/**
 * Request-body checks generated from the contract table. A sandbox function or an event receiver
 * validates a JSON body against the contract's zod schema; loading zod and building the schemas
 * was most of its cold start (bench/README.md). So each request body schema of the table (and
 * each option of a body that is a union of named schemas, e.g. the provider requests or the
 * lifecycle feed's CloudEvents envelopes) is turned here, at build
 * time, into a plan: plain data that functions/contract/body-check.ts walks with zod's own rules,
 * reporting the same issues. Refinements are named rules (functions/contract/body-rules.ts) that
 * the schema and the plan both run. The output (functions/generated/bodies.ts) is committed,
 * `npm run generate` rewrites it, and test/unit/generated-from-contract.test.ts fails when it
 * differs from what this makes of the current table; test/unit/body-check.test.ts holds every
 * plan to its zod schema. Any schema shape not listed below stops the generator rather than being
 * approximated.
 */
import type { Operation } from '../../functions/contract/operation';
import type { BodyCheck, BodyPlan } from '../../functions/contract/body-check';
import { bodyRuleOf, contractRegistry } from '../../functions/contract/registry';
import type { ZodDef } from './generate-params';
import * as eventSchemas from '../../functions/contract/events';
import { EVENT_ENVELOPES, eventContract } from '../../functions/contract/ingress';
import * as sandboxSchemas from '../../functions/contract/schemas/sandbox';

export const GENERATED_BODIES_FILE = 'functions/generated/bodies.ts';

/** A schema's definition, as far as body plans read it. */
interface BodyZodDef extends ZodDef {
  check?: string;
  shape?: Record<string, ZodSchema>;
  catchall?: ZodSchema;
  element?: ZodSchema;
  innerType?: ZodSchema;
  options?: ZodSchema[];
  values?: unknown[];
}

type ZodSchema = { _zod: { def: BodyZodDef; traits: Set<string> } };

/** The named schema (a contract component) a schema is, if any. */
const componentId = (schema: ZodSchema) => contractRegistry.get(schema as never)?.id;

function formatCheck(format: string, pattern: RegExp | undefined, where: string): BodyCheck {
  if (!pattern) throw new Error(`${where}: string format '${format}' without a pattern`);
  return { c: 'format', format, pattern: pattern.source, flags: pattern.flags };
}

function compileChecks(def: BodyZodDef, where: string): BodyCheck[] {
  const out: BodyCheck[] = [];
  for (const check of def.checks ?? []) {
    const c = check._zod.def;
    switch (c.check) {
      case 'min_length':
        out.push({ c: 'min_length', n: c.minimum! });
        break;
      case 'max_length':
        out.push({ c: 'max_length', n: c.maximum! });
        break;
      case 'string_format':
        out.push(formatCheck(c.format!, c.pattern, where));
        break;
      case 'number_format':
        if (c.format !== 'safeint') throw new Error(`${where}: number format '${c.format}' is not supported`);
        out.push({ c: 'int' });
        break;
      case 'greater_than':
        out.push({ c: 'min', n: c.value!, inclusive: c.inclusive === true });
        break;
      case 'less_than':
        out.push({ c: 'max', n: c.value!, inclusive: c.inclusive === true });
        break;
      case 'custom': {
        const name = bodyRuleOf(check);
        if (!name) throw new Error(`${where}: a refinement that is not a named body rule (use refinedBy, functions/contract/registry.ts)`);
        out.push({ c: 'rule', name });
        break;
      }
      default:
        throw new Error(`${where}: check '${c.check}' is not supported`);
    }
  }
  return out;
}

const withChecks = <T extends object>(plan: T, checks: BodyCheck[]): T => (checks.length > 0 ? { ...plan, checks } : plan);

/** A plan for one schema; `named` turns a nested component into a reference to its own plan. */
function compile(schema: ZodSchema, where: string, named: (schema: ZodSchema) => BodyPlan | undefined): BodyPlan {
  const reference = named(schema);
  if (reference) return reference;
  const def = schema._zod.def;
  switch (def.type) {
    case 'string': {
      if (def.coerce) throw new Error(`${where}: coerced strings are not supported`);
      // A string format (z.iso.datetime) is itself its first check.
      const own = schema._zod.traits.has('$ZodCheck') && def.check === 'string_format' ? [formatCheck(def.format!, def.pattern, where)] : [];
      return withChecks({ t: 'string' }, [...own, ...compileChecks(def, where)]);
    }
    case 'number':
      if (def.coerce) throw new Error(`${where}: coerced numbers are not supported`);
      return withChecks({ t: 'number' }, compileChecks(def, where));
    case 'boolean':
      return { t: 'boolean' };
    case 'enum':
      return { t: 'enum', values: Object.values(def.entries!) };
    case 'literal':
      return { t: 'literal', values: def.values as (string | number | boolean | null)[] };
    case 'unknown':
      return { t: 'unknown' };
    case 'optional':
      return { t: 'optional', inner: compile(def.innerType!, where, named) };
    case 'nullable':
      // zod lets an object omit a field whose nullable wraps an optional; the plan's objects read
      // only 'optional' as omittable, so that combination would be approximated: refuse it.
      if (def.innerType!._zod.def.type === 'optional') throw new Error(`${where}: a nullable optional is not supported (write .optional().nullable() as .nullable().optional())`);
      return { t: 'nullable', inner: compile(def.innerType!, where, named) };
    case 'array':
      return withChecks({ t: 'array', element: compile(def.element!, `${where}[]`, named) }, compileChecks(def, where));
    case 'union':
      return withChecks({ t: 'union', options: def.options!.map((o, i) => compile(o, `${where}|${i}`, named)) }, compileChecks(def, where));
    case 'object': {
      const catchall = def.catchall?._zod.def.type;
      if (catchall !== 'never' && catchall !== 'unknown') throw new Error(`${where}: only strict and loose objects are supported`);
      const shape = Object.entries(def.shape!).map(([key, field]) => [key, compile(field, `${where}.${key}`, named)] as [string, BodyPlan]);
      return withChecks({ t: 'object', shape, unknownKeys: catchall === 'never' ? 'refuse' : 'keep' }, compileChecks(def, where));
    }
    default:
      throw new Error(`${where}: schemas of type '${def.type}' are not supported by the body generator`);
  }
}

/** The schemas a body check is generated for: every request body, and the named options of a body that is a union. */
export function bodySchemas(operations: readonly Operation[]): Map<string, ZodSchema> {
  const out = new Map<string, ZodSchema>();
  const add = (schema: ZodSchema, where: string) => {
    const id = componentId(schema);
    if (!id) throw new Error(`${where}: a request body must be a named contract component`);
    out.set(id, schema);
  };
  for (const op of operations) {
    if (!op.requestBody) continue;
    const schema = op.requestBody.schema as unknown as ZodSchema;
    add(schema, op.operationId);
    if (schema._zod.def.type === 'union') for (const option of schema._zod.def.options!) if (componentId(option)) add(option, op.operationId);
  }
  return out;
}

/** The CloudEvents type whose envelope (functions/contract/ingress.ts, EVENT_ENVELOPES) a schema is, if any. */
const envelopeType = (schema: ZodSchema) => Object.entries(EVENT_ENVELOPES).find(([, envelope]) => envelope === (schema as unknown))?.[0];

/**
 * The TypeScript type a plan checks, written with the contract's own exports (type-only imports,
 * so no bundle carries the schemas): a sandbox body is what its schema in
 * functions/contract/schemas/sandbox.ts outputs (exported under its component id without
 * 'Sandbox'); an event envelope is the CloudEvents envelope of its payload schema in
 * functions/contract/events.ts; a union of named schemas is the union of theirs.
 */
function outputType(id: string, schema: ZodSchema): string {
  const sandboxName = id.replace(/^Sandbox/, '');
  if ((sandboxSchemas as Record<string, unknown>)[sandboxName] === schema) return `z.output<typeof S.${sandboxName}>`;
  const type = envelopeType(schema);
  if (type !== undefined) {
    const payload = eventContract(type)!.payload;
    const payloadName = Object.entries(eventSchemas).find(([, value]) => value === payload)?.[0];
    if (!payloadName) throw new Error(`${id}: functions/contract/events.ts exports no payload schema of ${type}`);
    return `CloudEventEnvelope<typeof E.${payloadName}>`;
  }
  const def = schema._zod.def;
  if (def.type === 'union' && def.options!.every((o) => componentId(o) !== undefined)) return def.options!.map((o) => outputType(componentId(o)!, o)).join(' | ');
  throw new Error(`${id}: no exported schema to type its plan with (functions/contract/schemas/sandbox.ts, or an event payload of functions/contract/events.ts)`);
}

/** The generated module's source: one plan per named schema, nested components by reference, each pattern once. */
export function generateBodyPlans(operations: readonly Operation[]): string {
  const roots = bodySchemas(operations);
  const emitted = new Map<string, string>();
  const order: string[] = [];
  const patterns: string[] = [];
  const constName = (id: string) => id.replace(/^Sandbox/, '').replace(/^./, (c) => c.toLowerCase());
  const token = (name: string) => `@@${name}@@`;

  const emit = (id: string, schema: ZodSchema): string => {
    if (emitted.has(id)) return emitted.get(id)!;
    const name = constName(id);
    emitted.set(id, name);
    // A nested component is emitted first, as its own constant, and referenced.
    const named = (nested: ZodSchema): BodyPlan | undefined => {
      const nestedId = componentId(nested);
      if (nestedId === undefined || nested === schema) return undefined;
      return token(emit(nestedId, nested)) as unknown as BodyPlan;
    };
    const plan = compile(schema, id, named);
    const json = JSON.stringify(plan, (key, value) => {
      if (key === 'pattern' && typeof value === 'string') {
        if (!patterns.includes(value)) patterns.push(value);
        return token(`P${patterns.indexOf(value)}`);
      }
      return value;
    }, 2);
    order.push(`/** ${id} */\nexport const ${name}: BodyPlan<${outputType(id, schema)}> = ${json.replace(/"@@(.+?)@@"/g, '$1')};`);
    return name;
  };
  for (const [id, schema] of roots) emit(id, schema);
  // The receivers choose an envelope by the body's CloudEvents type (functions/domain/ingress/event.ts).
  const envelopes = [...roots].flatMap(([id, schema]) => {
    const type = envelopeType(schema);
    return type === undefined ? [] : [`${JSON.stringify(type)}: ${emitted.get(id)}`];
  });

  return [
    '// Generated by `npm run generate` (lib/contract/generate-bodies.ts) from the contract table',
    '// (functions/contract/operations). Do not edit: change the table and regenerate.',
    "import type { z } from 'zod';",
    "import type { BodyPlan } from '../contract/body-check';",
    "import type * as S from '../contract/schemas/sandbox';",
    "import type * as E from '../contract/events';",
    "import type { CloudEventEnvelope } from '../contract/events';",
    '',
    // Each pattern once, as its own constant: a plan that is not imported is then dropped from a
    // bundle (esbuild keeps an initializer that reads an array element, which could have effects).
    '/** The regular expressions of the plans (string formats and patterns). */',
    ...patterns.map((pattern, i) => `const P${i} = ${JSON.stringify(pattern)};`),
    '',
    ...order.flatMap((block) => [block, '']),
    '/** Every plan by the contract component name of its schema. */',
    `export const BODY_PLANS: Readonly<Record<string, BodyPlan<unknown>>> = { ${[...roots.keys()].map((id) => `${id}: ${emitted.get(id)}`).join(', ')} };`,
    '',
    '/** The plan of each CloudEvents envelope a receiver takes, by event type. */',
    `export const EVENT_ENVELOPE_PLANS: Readonly<Record<string, BodyPlan<CloudEventEnvelope<z.ZodType<Record<string, unknown>>>>>> = { ${envelopes.join(', ')} };`,
    '',
  ].join('\n');
}
