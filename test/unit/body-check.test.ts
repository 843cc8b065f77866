import fc from 'fast-check';
import * as z from 'zod';
import { checkBody, type BodyPlan } from '../../functions/contract/body-check';
import { BODY_RULES } from '../../functions/contract/body-rules';
import { EVENT_ENVELOPES, INGRESS_SOURCES, LifecycleFeedEvent, SourceWebhookEvent } from '../../functions/contract/ingress';
import { operations } from '../../functions/contract/operations';
import { TRUST_FACT_NAMES } from '../../functions/contract/sandbox-values';
import { TrustFacts, TrustPolicy } from '../../functions/contract/schemas/sandbox';
import { BUILT_IN_POLICIES } from '../../functions/domain/sandbox/built-in-policies';
import { EXAMPLE_CUSTOM_POLICY, SANDBOX_EXAMPLES } from '../../functions/domain/sandbox/examples';
import { EventInputError, parseCanonicalEvent, type CanonicalEvent } from '../../functions/domain/ingress/event';
import { fieldIssues, issueAt, parseJsonBody } from '../../functions/domain/json-input';
import * as bodies from '../../functions/generated/bodies';
import { bodySchemas } from '../../lib/contract/generate-bodies';
import { buildEvent } from '../../lib/ingress/emit';

/**
 * The generated body checks (functions/generated/bodies.ts, walked by
 * functions/contract/body-check.ts) against the contract's zod schemas they were made from: on
 * seeded random bodies near each schema's shape (valid ones, and ones broken at any depth), both
 * accept the same bodies with the same value, and refuse the same bodies with the same field
 * issues (what the 422 problem details carry). The bodies include the receivers' CloudEvents
 * envelopes, whose payloads have nullable fields: drawn with nulls, wrong types, and fields
 * missing or added at every level.
 */

type Def = {
  type: string;
  format?: string;
  pattern?: RegExp;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  element?: Schema;
  innerType?: Schema;
  options?: Schema[];
  entries?: Record<string, string>;
  values?: unknown[];
  checks?: { _zod: { def: { check: string; minimum?: number; maximum?: number; value?: number; pattern?: RegExp } } }[];
};
type Schema = { _zod: { def: Def } };

/** Anything JSON can hold, small. */
const noise = fc.jsonValue({ maxDepth: 2 });

const checkDefs = (def: Def) => (def.checks ?? []).map((c) => c._zod.def);

/**
 * Arbitraries already made, by schema and depth. `mutated` asks for them inside `chain`, once per
 * drawn body: making them again each time (a pattern's string arbitrary above all) cost far more
 * than drawing from them. An arbitrary is immutable, so the drawn bodies are the same.
 */
const made = new WeakMap<Schema, Map<number, fc.Arbitrary<unknown>>>();

/** Values near a schema: mostly of its shape with values around its limits, sometimes anything at all. */
function near(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  let byDepth = made.get(schema);
  if (!byDepth) made.set(schema, (byDepth = new Map()));
  let arbitrary = byDepth.get(depth);
  if (!arbitrary) byDepth.set(depth, (arbitrary = makeNear(schema, depth)));
  return arbitrary;
}

function makeNear(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const def = schema._zod.def;
  const checks = checkDefs(def);
  const min = checks.find((c) => c.check === 'min_length' || c.check === 'greater_than');
  const max = checks.find((c) => c.check === 'max_length' || c.check === 'less_than');
  let shaped: fc.Arbitrary<unknown>;
  switch (def.type) {
    case 'string': {
      const pattern = def.pattern ?? checks.find((c) => c.check === 'string_format')?.pattern;
      const lo = min?.minimum ?? 0;
      const hi = max?.maximum ?? 40;
      shaped = fc.oneof(
        ...(pattern ? [fc.stringMatching(pattern).map((s) => s.slice(0, hi + 2))] : []),
        ...(def.format === 'datetime' ? [fc.date({ noInvalidDate: true, min: new Date('0001-01-01'), max: new Date('9999-12-31') }).map((d) => d.toISOString())] : []),
        fc.string({ minLength: Math.max(0, lo - 1), maxLength: Math.min(hi + 1, 80) }),
        fc.string({ unit: 'grapheme', maxLength: 5 }),
      );
      break;
    }
    case 'number': {
      const lo = (min?.value as number | undefined) ?? -1000;
      const hi = (max?.value as number | undefined) ?? 1000;
      shaped = fc.oneof(
        fc.integer({ min: Math.max(lo - 2, Number.MIN_SAFE_INTEGER), max: Math.min(lo + 2, Number.MAX_SAFE_INTEGER) }),
        fc.integer({ min: Math.max(hi - 2, Number.MIN_SAFE_INTEGER), max: Math.min(hi + 2, Number.MAX_SAFE_INTEGER) }),
        fc.double({ noNaN: true }),
        fc.constantFrom(0.5, -0, Number.POSITIVE_INFINITY, 2 ** 53, -(2 ** 53)),
      );
      break;
    }
    case 'enum':
      shaped = fc.oneof(fc.constantFrom(...Object.values(def.entries!)), fc.string({ maxLength: 4 }));
      break;
    case 'literal':
      shaped = fc.constantFrom(...def.values!);
      break;
    case 'boolean':
      shaped = fc.boolean();
      break;
    case 'unknown':
      shaped = noise;
      break;
    case 'optional':
      return fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: near(def.innerType!, depth) });
    case 'nullable':
      // null as often as anything near the inner schema (which is itself sometimes of the wrong type).
      return fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: near(def.innerType!, depth) });
    case 'union':
      shaped = fc.oneof(...def.options!.map((o) => near(o, depth)));
      break;
    case 'array': {
      const item = depth > 3 ? noise : near(def.element!, depth + 1);
      const hi = max?.maximum ?? 4;
      // At and just over the maximum: one drawn item repeated (cheap to draw, and a repeat for the uniqueness rules).
      const atLimit = fc.tuple(item, fc.integer({ min: hi, max: hi + 1 })).map(([x, n]) => Array.from({ length: n }, () => x));
      shaped = fc.oneof({ weight: 4, arbitrary: fc.array(item, { maxLength: Math.min(hi + 1, 4) }) }, { weight: 1, arbitrary: atLimit });
      break;
    }
    case 'object': {
      const entries = Object.entries(def.shape!).map(([key, field]) => [key, depth > 5 ? noise : near(field, depth + 1)] as const);
      shaped = fc
        .tuple(
          fc.record(Object.fromEntries(entries), { requiredKeys: [] }),
          fc.record(Object.fromEntries(entries)),
          fc.dictionary(fc.constantFrom('extra', 'x', '__proto__', 'length', ...Object.keys(def.shape!)), noise, { maxKeys: 2 }),
          fc.nat(9),
        )
        .map(([some, all, extra, pick]) => (pick < 5 ? all : pick < 8 ? some : { ...all, ...extra }));
      break;
    }
    default:
      throw new Error(`no generator for schemas of type ${def.type}`);
  }
  return fc.oneof({ weight: 12, arbitrary: shaped }, { weight: 1, arbitrary: noise });
}

/**
 * A valid body changed in one place, at any depth: a field redrawn near its schema, set to null,
 * dropped, or joined by an unknown one; an array item changed the same way.
 */
function mutated(schema: Schema, value: unknown): fc.Arbitrary<unknown> {
  const def = schema._zod.def;
  const inner = def.type === 'optional' ? def.innerType! : schema;
  const innerDef = inner._zod.def;
  if (innerDef.type === 'object' && Object.keys(innerDef.shape!).length > 0 && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(innerDef.shape!);
    return fc.constantFrom(...keys).chain((key) =>
      fc.oneof(
        near(innerDef.shape![key]).map((v) => ({ ...record, [key]: v })),
        fc.constant({ ...record, [key]: null }),
        key in record ? mutated(innerDef.shape![key], record[key]).map((v) => ({ ...record, [key]: v })) : fc.constant({ ...record }),
        fc.constant(Object.fromEntries(Object.entries(record).filter(([k]) => k !== key))),
        noise.map((v) => ({ ...record, unknownField: v })),
      ),
    );
  }
  if (innerDef.type === 'array' && Array.isArray(value) && value.length > 0) {
    return fc.nat(value.length - 1).chain((i) => mutated(innerDef.element!, value[i]).map((v) => value.map((item, j) => (j === i ? v : item))));
  }
  return near(schema);
}

/**
 * Canonical events of every type a receiver takes, as lib/ingress/emit.ts builds them (fixed id
 * and instant, so that the seeded runs repeat): with and without the nullable previous state.
 */
const AT = '2026-03-01T11:00:00.000Z';
const EVENT_EXAMPLES = [
  buildEvent('svc.living-object.state-changed.v1', 'ORD-2026-0001', { previousState: 'DELIVERED', state: 'RETURNED' }, AT, 'evt-1'),
  buildEvent('svc.living-object.state-changed.v1', 'ORD-2026-0001', { state: 'PLACED' }, AT, 'evt-2'),
  buildEvent('svc.living-object.authority-observed.v1', 'WAR-2026-0001', { objectType: 'WARRANTY', state: 'ACTIVE' }, '2026-03-01T11:00:00+02:00', 'evt-3'),
  buildEvent('svc.credential.status-changed.v1', 'urn:claim:1', { previousStatus: 'ACTIVE', status: 'REVOKED' }, AT, 'evt-4'),
  buildEvent('svc.credential.status-changed.v1', 'urn:claim:2', { status: 'ACTIVE' }, AT, 'evt-5'),
  buildEvent('svc.commercial-proof.source-snapshot.v1', 'CP-2026-0001', { sourceState: 'DELIVERED' }, AT, 'evt-6'),
];

/** Valid bodies to start from: every sandbox example, policy and canonical event this schema accepts. */
function seeds(schema: z.ZodType): unknown[] {
  const candidates = [...SANDBOX_EXAMPLES.map((e) => e.body), ...Object.values(BUILT_IN_POLICIES), EXAMPLE_CUSTOM_POLICY, ...EVENT_EXAMPLES];
  return candidates.filter((c) => schema.safeParse(c).success);
}

/** Bodies near a schema: drawn from its shape, or a valid example as is or changed in one place. */
function bodiesNear(schema: z.ZodType): fc.Arbitrary<unknown> {
  const valid = seeds(schema);
  const shaped = near(schema as unknown as Schema);
  if (valid.length === 0) return shaped;
  const example = fc.constantFrom(...valid);
  return fc.oneof(shaped, example, example.chain((v) => mutated(schema as unknown as Schema, v)), example.chain((v) => mutated(schema as unknown as Schema, v)));
}

/** What a request body can be: JSON text parsed (no undefined, -0 as 0, non-finite numbers as null, __proto__ an own key). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value ?? null));

const plans = bodies as unknown as Record<string, BodyPlan>;
const cases: [string, z.ZodType, BodyPlan][] = [
  ...[...bodySchemas(operations)].map(([id, schema]) => [id, schema as unknown as z.ZodType, bodies.BODY_PLANS[id]] as [string, z.ZodType, BodyPlan]),
  ['SandboxTrustPolicy', TrustPolicy, plans.trustPolicy],
];

test('the facts a policy may name are the fields of the TrustFacts schema (the list the zod-free sandbox code reads)', () => {
  expect([...TRUST_FACT_NAMES]).toEqual(Object.keys(TrustFacts.shape));
});

test('every request body of the table has a generated check', () => {
  expect(cases.length).toBeGreaterThan(5);
  for (const [id, , plan] of cases) expect([id, typeof plan]).toEqual([id, 'object']);
});

test('every event type a receiver takes has its envelope plan (the receivers choose it by type)', () => {
  const types = Object.values(INGRESS_SOURCES).flatMap((s) => s.accepts);
  expect(Object.keys(bodies.EVENT_ENVELOPE_PLANS).sort()).toEqual([...types].sort());
  for (const type of types) expect(cases.filter(([, , plan]) => plan === bodies.EVENT_ENVELOPE_PLANS[type])).toHaveLength(1);
});

describe.each(cases)('%s', (_id, schema, plan) => {
  it('accepts and refuses what its zod schema does, with the same value or the same field issues', () => {
    fc.assert(
      fc.property(bodiesNear(schema).map(asJson), (body) => {
        const expected = schema.safeParse(body, { reportInput: true });
        const actual = checkBody(plan, body, BODY_RULES);
        if (expected.success) expect({ issues: actual.issues, value: actual.value }).toEqual({ issues: [], value: expected.data });
        else expect(fieldIssues(actual.issues)).toEqual(fieldIssues(expected.error.issues as never));
      }),
      { numRuns: 250, seed: 20261123 },
    );
  });

  it('is exercised on both sides: the bodies drawn include accepted and refused ones', () => {
    expect(seeds(schema).length).toBeGreaterThan(0);
    const outcomes = fc.sample(bodiesNear(schema).map(asJson), { numRuns: 100, seed: 7 }).map((body) => schema.safeParse(body).success);
    expect(new Set(outcomes)).toEqual(new Set([true, false]));
  });
});

test('a value of the wrong type is refused in words, its length checked as zod checks it (found by a seeded run: a `length` that is no number)', () => {
  const [, schema, plan] = cases.find(([id]) => id === 'ObjectStateChangedEvent')!;
  const issuesOfId = (id: unknown) => fieldIssues(checkBody(plan, { ...EVENT_EXAMPLES[0], id }, BODY_RULES).issues).filter((i) => i.field === 'id');
  const id = (...details: string[]) => details.map((detail) => ({ field: 'id', pointer: '/id', detail }));
  expect(issuesOfId({ length: {} })).toEqual(id('must be a string, not a JSON object', 'must be at least 1', 'must be at most 128'));
  expect(issuesOfId({ length: 0 })).toEqual(id('must be a string, not a JSON object', 'must be at least 1'));
  expect(issuesOfId({})).toEqual(id('must be a string, not a JSON object'));
  expect(issuesOfId([])).toEqual(id('must be a string, not an array', 'must have at least 1 item(s)'));
  expect(issuesOfId(true)).toEqual(id('must be a string, not a boolean'));
  expect(issuesOfId(7)).toEqual(id('must be a string, not 7'));
  for (const value of [{ length: {} }, { length: 0 }, {}, [], true, 7]) {
    const zod = schema.safeParse({ ...EVENT_EXAMPLES[0], id: value }, { reportInput: true });
    expect(issuesOfId(value)).toEqual(fieldIssues(zod.error!.issues as never).filter((i) => i.field === 'id'));
  }
});

/**
 * The receivers' reading of a delivery as it was when it validated with zod (functions/domain/
 * ingress/event.ts before the generated plans covered nullable fields), kept as the oracle of the
 * plan-based one: the type the source may send first (a loose object), then that type's envelope
 * schema, then the subject.
 */
function parseCanonicalEventWithZod(rawBody: string | null, accepts: readonly string[]): CanonicalEvent {
  const validate = <T extends z.ZodType>(schema: T, value: unknown): z.output<T> => {
    const parsed = schema.safeParse(value, { reportInput: true });
    if (!parsed.success) throw new EventInputError(fieldIssues(parsed.error.issues as never));
    return parsed.data;
  };
  const body = parseJsonBody<unknown>(rawBody, { t: 'unknown' }, { optional: false });
  const typed = validate(z.object({ type: z.enum(accepts as [string, ...string[]]) }).loose(), body);
  const event = validate(EVENT_ENVELOPES[typed.type], body) as Omit<CanonicalEvent, 'reference' | 'at'>;
  const data = event.data;
  const reference = String(data.reference ?? data.claimId);
  const referenceField = data.reference !== undefined ? 'reference' : 'claimId';
  if (event.subject !== reference) throw new EventInputError([issueAt(['subject'], `must be the event's data.${referenceField} ('${reference}')`)]);
  return { ...event, reference, at: String(data.changedAt ?? data.observedAt) };
}

const outcome = (parse: () => CanonicalEvent) => {
  try {
    return { event: parse() };
  } catch (error) {
    if (error instanceof EventInputError) return { issues: error.issues };
    throw error;
  }
};

const RECEIVER_BODIES = { lifecycle: LifecycleFeedEvent, webhook: SourceWebhookEvent };

/** What a receiver is sent: mostly events near its own body, also the other receiver's, and events typed wrongly or not at all. */
const deliveries = (receiver: keyof typeof RECEIVER_BODIES) =>
  fc.oneof(
    { weight: 3, arbitrary: bodiesNear(RECEIVER_BODIES[receiver]).map(asJson) },
    { weight: 1, arbitrary: bodiesNear(RECEIVER_BODIES[receiver === 'lifecycle' ? 'webhook' : 'lifecycle']).map(asJson) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...EVENT_EXAMPLES), fc.oneof(fc.constant(undefined), noise, fc.constantFrom(...Object.keys(EVENT_ENVELOPES))))
        .map(([example, type]) => asJson({ ...example, type })),
    },
  );

describe.each(Object.entries(INGRESS_SOURCES))('the receiver of source %s', (_source, { receiver, accepts }) => {
  it('accepts and refuses every delivery as it did with zod: the same event, or the same 422 fields, pointers and details', () => {
    fc.assert(
      fc.property(deliveries(receiver), (body) => {
        const raw = JSON.stringify(body);
        expect(outcome(() => parseCanonicalEvent(raw, accepts))).toEqual(outcome(() => parseCanonicalEventWithZod(raw, accepts)));
      }),
      { numRuns: 300, seed: 20261123 },
    );
  });

  it('is exercised on both sides: the deliveries drawn include accepted events and refusals at the type, the envelope, the payload and the subject', () => {
    const fields = fc.sample(deliveries(receiver), { numRuns: 200, seed: 11 }).map((body) => {
      const out = outcome(() => parseCanonicalEventWithZod(JSON.stringify(body), accepts));
      return 'event' in out ? 'accepted' : out.issues[0].field.replace(/^data\..*/, 'data.*');
    });
    expect(['accepted', 'type', 'subject', 'data.*', 'time'].filter((field) => !fields.includes(field))).toEqual([]);
  });
});
