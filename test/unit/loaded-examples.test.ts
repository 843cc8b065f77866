import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { documentSource } from '../../lib/loader/load';
import { buildIngressExamples } from '../../lib/publish/ingress-examples';
import { loadedDocuments, loadedRecordsOf } from '../../lib/publish/loaded-examples';

/** lib/publish/loaded-examples.ts: which records a completed load derives its published examples from. */

const ANCHOR = new Date('2026-11-01T12:00:00Z');

test('a record the load kept as events changed it is no subject: the file no longer says what state it is in', async () => {
  const source = () => documentSource(demoDocument(ANCHOR), 'the demo data');
  const all = await loadedRecordsOf(source(), []);
  const kept = await loadedRecordsOf(source(), [DEMO_OBJECTS.current]);
  expect(all.map((r) => r.reference)).toContain(DEMO_OBJECTS.current);
  expect(kept.map((r) => r.reference)).not.toContain(DEMO_OBJECTS.current);
  expect(kept).toHaveLength(all.length - 1);

  const stateChange = (records: typeof all) => buildIngressExamples({ records }).find((e) => e.name === 'lifecycle-state-changed')!;
  expect(stateChange(all).expect.reference).toBe(DEMO_OBJECTS.current);
  // Another object of the file that fits takes its place, derived (no template).
  expect(stateChange(kept).expect.reference).not.toBe(DEMO_OBJECTS.current);
  expect(stateChange(kept).fill).toBeUndefined();
  const published = JSON.parse(loadedDocuments(kept).get('developers/sandbox/examples.json')!);
  expect(published.ingress.examples.find((e: { name: string }) => e.name === 'lifecycle-state-changed')).toEqual(stateChange(kept));
});
