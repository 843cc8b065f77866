import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { buildEvent } from '../../lib/ingress/emit';
import type { LocalService } from '../../lib/local/service';
import { emit, expectProblem, SNAPSHOT, STATE_CHANGED } from '../support/ingress';
import { getJson, startTestService } from '../support/local';

/**
 * A JSON body that gives a member name twice is refused where bodies are read, at the receivers
 * and in the sandbox: 422 naming the member (I-JSON, RFC 7493). Read by JSON.parse the last one
 * would win, and an auditor whose parser keeps the first would read another event.
 */
let service: LocalService;
beforeAll(async () => {
  service = await startTestService(new Date(), { sequencer: false });
});
afterAll(() => service?.close());

/** The event's JSON with `member` of its data given a second time, as `value`. */
function withRepeatedMember(event: Record<string, unknown>, member: string, value: string): string {
  const text = JSON.stringify(event);
  const marker = `"${member}":`;
  const at = text.indexOf(marker, text.indexOf('"data":'));
  return `${text.slice(0, at)}${marker}${JSON.stringify(value)},${text.slice(at)}`;
}

describe('the receivers', () => {
  test('a signed event whose data gives `state` twice is a 422 naming data.state, and nothing is stored', async () => {
    const event = buildEvent(STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' });
    const body = withRepeatedMember(event, 'state', 'CANCELLED');
    expect(JSON.parse(body).data.state).toBe('RETURNED');
    const res = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.current, {}, { body });
    const problem = expectProblem(res, 422, 'INVALID_REQUEST');
    expect(problem.field).toBe('data.state');
    expect(problem.detail).toContain('member names must be unique (I-JSON, RFC 7493)');
    // The same event (same CloudEvents id) without the repeat is accepted as a first delivery: the
    // refused one was not stored as that event, and the refusal was the repeat alone.
    const clean = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.current, {}, { body: JSON.stringify(event) });
    expect(clean.status).toBe(202);
    expect(clean.headers.get('webhook-replayed')).toBeNull();
  });

  test('a repeated envelope member (`type`) is refused at the webhook receiver too', async () => {
    const event = buildEvent(SNAPSHOT, DEMO_PROOFS.current, { sourceState: 'DELIVERED' });
    const text = JSON.stringify(event);
    const body = text.replace('"type":', `"type":${JSON.stringify(SNAPSHOT)},"type":`);
    const res = await emit(service.url, SNAPSHOT, DEMO_PROOFS.current, {}, { body });
    expect(expectProblem(res, 422, 'INVALID_REQUEST').field).toBe('type');
  });
});

describe('the sandbox', () => {
  test('a body giving advanceMs twice is a 422 naming advanceMs', async () => {
    const res = await getJson(`${service.url}/developers/sandbox/test-clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"advanceMs":1000,"advanceMs":86400000}',
    });
    expect([res.status, res.body.code, res.body.field]).toEqual([422, 'INVALID_REQUEST', 'advanceMs']);
    expect(res.body.errors[0]).toMatchObject({ field: 'advanceMs', pointer: '/advanceMs' });
  });
});
