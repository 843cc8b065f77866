import { demoDocument, DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { objectTransitionRefusal } from '../../functions/domain/kinds/object';
import { validateRecords } from '../../lib/loader/load';
import { EXAMPLE_INSTANT } from '../../lib/publish/events';
import { buildIngressExamples, ingressRecordsOf } from '../../lib/publish/ingress-examples';
import { documentSource } from '../../lib/loader/source';
import { buildSandboxExamples } from '../../lib/publish/sandbox';
import { canonicalSources } from '../../lib/publish/sources';

/**
 * The published ingress examples: derived from the records being loaded when they are known
 * (dated after each record's latest entry, stating its current state, a change its lifecycle
 * allows), templates naming the fields to fill when they are not (a deployment's build).
 */
const ANCHOR = new Date('2026-11-20T10:00:00Z');
const records = validateRecords(demoDocument(ANCHOR));
const latestOf = (reference: string) => records.find((r) => r.reference === reference)!.entries.reduce((latest, e) => (e.at > latest ? e.at : latest), '');
const stateOf = (reference: string) => (records.find((r) => r.reference === reference)!.entries.at(-1)!.view as { state: string }).state;

test('without records every example is a template: marked, at the fixed instant, naming the fields to fill', () => {
  const examples = buildSandboxExamples(canonicalSources()).ingress.examples;
  expect(examples.length).toBe(3);
  for (const example of examples) {
    expect(example.title).toMatch(/^Template: /);
    expect(example.body.time).toBe(EXAMPLE_INSTANT);
    expect(example.fill!.map((f) => f.field)).toEqual(expect.arrayContaining(['body.time', 'body.id']));
  }
  expect(examples.find((e) => e.name === 'lifecycle-state-changed')!.fill!.map((f) => f.field)).toEqual(expect.arrayContaining(['body.data.previousState', 'body.data.state']));
});

test('with records each example is dated after its record\'s latest entry and states its current state; a state change its lifecycle allows', () => {
  const examples = buildIngressExamples({ records });
  expect(examples.every((e) => e.fill === undefined && !e.title.startsWith('Template'))).toBe(true);
  for (const example of examples) {
    const reference = example.expect.reference;
    expect([reference, String(example.body.time) > latestOf(reference)]).toEqual([reference, true]);
    expect(new Date(String(example.body.time)).getTime() - new Date(latestOf(reference)).getTime()).toBe(1000);
  }
  const change = examples.find((e) => e.name === 'lifecycle-state-changed')!;
  const data = change.body.data as { previousState: string; state: string; changedAt: string };
  expect(data.previousState).toBe(stateOf(DEMO_OBJECTS.current));
  expect(objectTransitionRefusal(data.previousState, data.state)).toBeNull();
  expect([data.changedAt, change.expect.value]).toEqual([change.body.time, data.state]);
  const observed = examples.find((e) => e.name === 'lifecycle-authority-observed')!;
  expect((observed.body.data as { state: string }).state).toBe(stateOf(DEMO_OBJECTS.stale));
  expect(observed.expect.value).toBe(new Date(String(observed.body.time)).toISOString());
});

test('an earliest instant later than the records keeps every example at it', () => {
  const at = '2026-11-20T12:00:00Z';
  expect(buildIngressExamples({ records, at }).map((e) => e.body.time)).toEqual([at, at, at]);
});

test("an operator's records without the demo references: the first record of the kind that fits; an example no record fits stays a template", () => {
  const others = records.filter((r) => r.reference !== DEMO_OBJECTS.current && r.reference !== DEMO_PROOFS.unknown);
  const derived = buildIngressExamples({ records: others });
  const change = derived.find((e) => e.name === 'lifecycle-state-changed')!;
  expect(change.expect.reference).not.toBe(DEMO_OBJECTS.current);
  expect((change.body.data as { previousState: string }).previousState).toBe(stateOf(change.expect.reference));
  expect(change.body.subject).toBe(change.expect.reference);
  expect(derived.find((e) => e.name === 'webhook-source-snapshot')!.expect.reference).not.toBe(DEMO_PROOFS.unknown);
  const onlyObjects = buildIngressExamples({ records: records.filter((r) => r.kind === 'OBJECT') });
  expect(onlyObjects.map((e) => e.fill === undefined)).toEqual([true, true, false]);
});

test('a record in a state whose lifecycle allows no RETURNED gets a change its lifecycle does allow', () => {
  const moved = records.map((r) => (r.reference === DEMO_OBJECTS.current ? { ...r, entries: r.entries.map((e) => ({ ...e, view: { ...(e.view as object), state: 'CANCELLED' } })) } : r));
  const change = buildIngressExamples({ records: moved }).find((e) => e.name === 'lifecycle-state-changed')!;
  const data = change.body.data as { previousState: string; state: string };
  expect(data.previousState).toBe('CANCELLED');
  expect(data.state).not.toBe('RETURNED');
  expect(objectTransitionRefusal('CANCELLED', data.state)).toBeNull();
});

test('a records file read for its examples (as npm run build -- --records FILE reads it) gives the same examples as the records themselves', async () => {
  const read = await ingressRecordsOf(documentSource(demoDocument(ANCHOR)));
  expect(read.length).toBeLessThan(records.length + 1);
  expect(buildIngressExamples({ records: read })).toEqual(buildIngressExamples({ records }));
});
