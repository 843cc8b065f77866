import fc from 'fast-check';
import { answerFromJson, answerToJson, invocationFromJson, invocationToJson, partWriters, type PartAnswer, type PartInvocation } from '../../functions/ledger-writer/parts';

/**
 * What a part writer is invoked with, and what it answers, as they travel (functions/ledger-writer/parts.ts):
 * JSON, bytes as base64. Whatever arrives, the part writer either reads exactly the invocation that
 * was sent or refuses it with a TypeError saying what was wrong, before it touches a store; the
 * sequencer does the same with an answer, before it journals anything. Neither is ever taken in part. The invocations a real batch sends: test/integration/sequencer-parts-lambda.test.ts.
 */
const SEED = 20261207;

const bytes = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
const waitingEvent = fc.record({ key: fc.string(), event: fc.record({ raw: fc.string(), reference: fc.string(), type: fc.string() }), sequencing: fc.constant('PENDING') });
const chunksName = fc.stringMatching(/^[0-9A-Za-z-]{1,64}$/);
const plan = fc
  .record({ keys: fc.array(fc.string()), events: fc.array(waitingEvent, { maxLength: 3 }), named: fc.array(fc.string()), journal: chunksName }, { requiredKeys: ['keys', 'events', 'named'] })
  .map((p): PartInvocation => ({ plan: p as never }));
const store = fc
  .record({ dir: fc.string(), resources: fc.array(fc.record({ path: fc.string(), bytes, immutable: fc.boolean() }), { maxLength: 4 }) })
  .map((s): PartInvocation => ({ store: s }));
const placement = fc.record({
      origin: fc.string(),
      start: fc.nat(),
      leaves: bytes,
      treeSize: fc.nat(),
      frontier: fc.array(fc.tuple(fc.nat(), fc.nat(), bytes), { maxLength: 4 }),
      checkpoint: fc.string(),
    });
// Its chunks, or where it stored them (then no chunks).
const write = fc
  .oneof(fc.record({ chunks: fc.array(bytes, { maxLength: 4 }), placement }), fc.record({ chunks: fc.constant<Uint8Array[]>([]), stored: fc.record({ name: chunksName, count: fc.nat() }), placement }))
  .map((w): PartInvocation => ({ write: w }));
const route = fc.record({ keys: fc.array(fc.string()) }).map((r): PartInvocation => ({ route: r }));
const invocation = fc.oneof(plan, store, write, route);

/** As Lambda carries it: JSON text. */
const travelled = (inv: PartInvocation): unknown => JSON.parse(JSON.stringify(invocationToJson(inv)));
/** Bytes compared as bytes, whatever view holds them. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (_k, v) => (v instanceof Uint8Array || (v && v.type === 'Buffer') ? Buffer.from(v.data ?? v).toString('hex') : v)));

test('any invocation the sequencer sends reads back exactly as sent (seeded)', () => {
  fc.assert(
    fc.property(invocation, (inv) => {
      expect(plain(invocationFromJson(travelled(inv)))).toEqual(plain(inv));
    }),
    { seed: SEED, numRuns: 300 },
  );
});

/**
 * Reads `json`: the invocation, or the refusal (a TypeError naming what a part writer is invoked
 * with); any other error, a TypeError of JavaScript's own among them, fails the property.
 */
function readOrRefused(json: unknown): PartInvocation | TypeError {
  try {
    return invocationFromJson(json);
  } catch (error) {
    if (error instanceof TypeError && /^a part writer/.test(error.message)) return error;
    throw error;
  }
}

test('any JSON value: an invocation or a TypeError, never another error (seeded)', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (json) => {
      readOrRefused(json);
    }),
    { seed: SEED, numRuns: 1000 },
  );
});

test('an invocation with one field changed to anything: read whole or refused, never another error (seeded)', () => {
  // Each kind's fields, one level down and in the placement: the shapes a mistake in the sequencer would send.
  const paths = [['plan', 'keys'], ['plan', 'events'], ['plan', 'named'], ['plan', 'journal'], ['store', 'dir'], ['store', 'resources'], ['write', 'chunks'], ['write', 'stored'], ['write', 'placement'], ...['origin', 'start', 'leaves', 'treeSize', 'frontier', 'checkpoint'].map((f) => ['write', 'placement', f])];
  fc.assert(
    fc.property(invocation, fc.constantFrom(...paths), fc.jsonValue(), (inv, path, replacement) => {
      const json = travelled(inv) as Record<string, Record<string, unknown>>;
      const [kind, field, inner] = path;
      if (!(kind in json)) return;
      if (inner === undefined) json[kind][field] = replacement;
      else (json[kind][field] as Record<string, unknown>)[inner] = replacement;
      readOrRefused(json);
    }),
    { seed: SEED, numRuns: 1000 },
  );
});

test('refused, saying what was wrong: two kinds at once, none, a placement that starts before the log, bytes that are not base64', () => {
  const valid = travelled({ write: { chunks: [], placement: { origin: 'o', start: 0, leaves: Buffer.alloc(32), treeSize: 1, frontier: [], checkpoint: 'c' } } }) as { write: { chunks: unknown[]; placement: Record<string, unknown> } };
  expect(() => invocationFromJson({ plan: { keys: [], events: [], named: [] }, write: valid.write })).toThrow(new TypeError('a part writer is invoked with one of a part to plan, tiles to store, a part to write or keys to route'));
  expect(() => invocationFromJson({})).toThrow(TypeError);
  expect(() => invocationFromJson(null)).toThrow(TypeError);
  expect(() => invocationFromJson({ write: { ...valid.write, placement: { ...valid.write.placement, start: -1 } } })).toThrow(/not a part to write/);
  expect(() => invocationFromJson({ write: { ...valid.write, chunks: ['not base64!'] } })).toThrow(/not a part to write/);
  expect(() => invocationFromJson({ plan: { keys: ['P#a'], events: [{ key: 'P#a' }], named: [] } })).toThrow(/not a part to plan/);
  expect(() => invocationFromJson({ store: { dir: '', resources: [{ path: 'tile/0/000', bytes: 'AAAA' }] } })).toThrow(/not tiles to store/);
  // A name to store chunks under is letters, digits and '-'; a part stored is never also handed its chunks.
  expect(() => invocationFromJson({ plan: { keys: [], events: [], named: [], journal: 'L#LOG' } })).toThrow(/not a part to plan/);
  expect(() => invocationFromJson({ write: { ...valid.write, stored: { name: 'b-0', count: 1 }, chunks: ['AAAA'] } })).toThrow(/not a part to write/);
  expect(() => invocationFromJson({ write: { ...valid.write, stored: { name: 'b-0', count: -1 } } })).toThrow(/not a part to write/);
  expect(invocationFromJson({ write: { ...valid.write, stored: { name: 'b-0', count: 2 } } })).toMatchObject({ write: { chunks: [], stored: { name: 'b-0', count: 2 } } });
  expect(invocationFromJson(valid)).toMatchObject({ write: { placement: { start: 0, treeSize: 1 } } });
});

const planned = fc
  .record({
    leaves: fc.array(fc.record({ reference: fc.string(), version: fc.nat(), entry: bytes }), { maxLength: 4 }),
    projections: fc.array(fc.record({ reference: fc.string(), parts: fc.array(fc.jsonValue(), { maxLength: 2 }), from: fc.string() }), { maxLength: 2 }),
    summary: fc.record({ deliveries: fc.nat(), sequenced: fc.nat(), setAside: fc.nat(), retried: fc.nat(), entriesWritten: fc.nat(), reasons: fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }) }),
    chunks: fc.oneof(fc.record({ chunks: fc.array(bytes, { maxLength: 3 }) }), fc.record({ chunks: fc.constant<Uint8Array[]>([]), stored: fc.record({ name: chunksName, count: fc.nat() }) })),
  })
  .map(({ chunks, ...rest }): PartAnswer => ({ ...rest, ...chunks }) as PartAnswer);
const routes = fc.array(fc.tuple(fc.string(), fc.string())).map((r): PartAnswer => ({ routes: r }));
const answer = fc.oneof(planned, fc.constant<PartAnswer>({ written: true }), routes);
const answered = (a: PartAnswer): unknown => JSON.parse(JSON.stringify(answerToJson(a)));

/** Reads an answer as the sequencer does: the answer, or the refusal (a TypeError naming a part writer's answer); any other error fails the property. */
function answerOrRefused(json: unknown): PartAnswer | TypeError {
  try {
    return answerFromJson(json);
  } catch (error) {
    if (error instanceof TypeError && /^a part writer's answer/.test(error.message)) return error;
    throw error;
  }
}

test('any answer a part writer gives reads back exactly as given (seeded)', () => {
  fc.assert(
    fc.property(answer, (a) => {
      expect(plain(answerFromJson(answered(a)))).toEqual(plain(a));
    }),
    { seed: SEED, numRuns: 300 },
  );
});

test('any JSON value as an answer, or one field of an answer changed to anything: read whole or refused, never another error (seeded)', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (json) => {
      answerOrRefused(json);
    }),
    { seed: SEED, numRuns: 1000 },
  );
  const paths = [['leaves'], ['chunks'], ['stored'], ['projections'], ['summary'], ...['references', 'versions', 'lengths', 'entries'].map((f) => ['leaves', f]), ...['sequenced', 'reasons'].map((f) => ['summary', f])];
  fc.assert(
    fc.property(planned, fc.constantFrom(...paths), fc.jsonValue(), (a, path, replacement) => {
      const json = answered(a) as Record<string, Record<string, unknown>>;
      const [field, inner] = path;
      if (inner === undefined) json[field] = replacement as never;
      else json[field][inner] = replacement;
      answerOrRefused(json);
    }),
    { seed: SEED, numRuns: 1000 },
  );
});

test('an answer refused, saying what was wrong: leaves whose lengths do not add up, chunks both stored and handed back, chunks stored under another name than the one given', async () => {
  const valid = answered({ leaves: [{ reference: 'ORD-1', version: 2, entry: Buffer.from('{}') }], chunks: [], projections: [], summary: { deliveries: 1, sequenced: 1, setAside: 0, retried: 0, entriesWritten: 1, reasons: {} } }) as Record<string, any>;
  expect(answerFromJson(valid)).toMatchObject({ leaves: [{ reference: 'ORD-1', version: 2 }] });
  expect(() => answerFromJson({ ...valid, leaves: { ...valid.leaves, lengths: [3] } })).toThrow(/lengths do not add up/);
  expect(() => answerFromJson({ ...valid, chunks: ['AAAA'], stored: { name: 'b-0', count: 1 } })).toThrow(/not a planned part/);
  expect(() => answerFromJson({ written: true, leaves: valid.leaves })).toThrow(TypeError);
  const stores = (name: string) => partWriters({ eventsPerPart: 1, maxParts: 2 }, async () => ({ ...valid, stored: { name, count: 1 } }));
  await expect(stores('b-1').plan({ keys: [], events: [], named: [], journal: 'b-1' })).resolves.toMatchObject({ stored: { name: 'b-1', count: 1 } });
  await expect(stores('b-0').plan({ keys: [], events: [], named: [], journal: 'b-1' })).rejects.toThrow(/stored its chunks under "b-0", not the name it was given/);
  // Keys routed: only keys it was asked, as [key, reference] pairs.
  const routing = (answer: unknown) => partWriters({ eventsPerPart: 1, maxParts: 2 }, async () => answer);
  await expect(routing({ routes: [['P#a', 'ORD-1']] }).route(['P#a', 'P#b'])).resolves.toEqual(new Map([['P#a', 'ORD-1']]));
  await expect(routing({ routes: [['P#c', 'ORD-1']] }).route(['P#a'])).rejects.toThrow(/routes a key it was not asked/);
  await expect(routing({ routes: [['P#a']] }).route(['P#a'])).rejects.toThrow(/not its routes: \[key, reference\] pairs/);
  await expect(routing(valid).route(['P#a'])).rejects.toThrow(/not its routes/);
  expect(() => invocationFromJson({ route: { keys: ['P#a'], events: [] } })).toThrow(/not keys to route/);
  // To tiles to store or a part to write, only { written: true }.
  await expect(partWriters({ eventsPerPart: 1, maxParts: 2 }, async () => valid).write({ chunks: [], placement: { origin: 'o', start: 0, leaves: Buffer.alloc(0), treeSize: 0, frontier: [], checkpoint: '' } })).rejects.toThrow(/not \{ written: true \}/);
});
