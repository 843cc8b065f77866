import fc from 'fast-check';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { buildEvent, deliver, devSecrets, senderOf, signedHeaders } from '../../lib/ingress/emit';
import { DEV_INGRESS_SECRETS_FILE, type LocalService } from '../../lib/local/service';
import { startTestService } from '../support/local';
import { CREDENTIAL_CHANGED, OBSERVED, SNAPSHOT, STATE_CHANGED } from '../support/ingress';

/**
 * Seeded property-based fuzzing of both receivers through the real local server: canonical events
 * with fields replaced by hostile values, extra fields, broken JSON, and headers from correctly
 * signed to garbled. Every answer is 202 or problem details; no 5xx but 503; the service goes on.
 */
const SEED = 20_261_123;
const RUNS = Number(process.env.INGRESS_FUZZ_RUNS ?? 400);

let service: LocalService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.close());

const secrets = devSecrets(DEV_INGRESS_SECRETS_FILE);
const references = [DEMO_OBJECTS.current, DEMO_OBJECTS.revoked, DEMO_OBJECTS.historical, DEMO_CREDENTIALS.active, DEMO_PROOFS.current, 'ORD-2026-9999', 'AB', 'x'.repeat(200)];
const hostile = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1e308, '', 'DELIVERED', 'RETURNED', 'ARCHIVED', 'ACTIVE', 'REVOKED', '2026-01-01T00:00:00Z', '2999-01-01T00:00:00Z', 'not-a-date', '__proto__', '\u0000', '\ud800', '<script>', 'a@b.c'),
  fc.string({ maxLength: 30 }),
  fc.json({ maxDepth: 2 }).map((j) => JSON.parse(j) as unknown),
);
const fieldNames = ['state', 'previousState', 'status', 'previousStatus', 'sourceState', 'objectType', 'reference', 'claimId', 'changedAt', 'observedAt', 'digest', 'disclosure', 'customerEmail', 'iban'];
const envelopeNames = ['specversion', 'id', 'type', 'subject', 'time', 'datacontenttype', 'source', 'extra'];

const event = fc
  .record({
    type: fc.constantFrom(STATE_CHANGED, OBSERVED, CREDENTIAL_CHANGED, SNAPSHOT),
    reference: fc.constantFrom(...references),
    dataEdits: fc.oneof({ weight: 2, arbitrary: fc.constant([] as [string, unknown][]) }, { weight: 3, arbitrary: fc.array(fc.tuple(fc.constantFrom(...fieldNames), hostile), { minLength: 1, maxLength: 3 }) }),
    envelopeEdits: fc.oneof({ weight: 3, arbitrary: fc.constant([] as [string, unknown][]) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom(...envelopeNames), hostile), { minLength: 1, maxLength: 2 }) }),
    stateField: fc.constantFrom('DELIVERED', 'RETURNED', 'ARCHIVED', 'ACTIVE', 'SUSPENDED', 'REVOKED', 'DELIVERED'),
  })
  .map(({ type, reference, dataEdits, envelopeEdits, stateField }) => {
    const fields: Record<string, string> = type === SNAPSHOT ? { sourceState: stateField } : type === CREDENTIAL_CHANGED ? { status: stateField } : { state: stateField };
    const built = buildEvent(type, reference.length <= 180 ? reference : 'ORD-2026-0001', fields) as any;
    if (reference.length > 180) built.subject = reference;
    for (const [name, value] of dataEdits) built.data[name] = value;
    for (const [name, value] of envelopeEdits) built[name] = value;
    return JSON.stringify(built);
  });
/**
 * A source snapshot of a commercial proof as the sender builds it: no transition rule refuses one
 * (docs/ingress.md#lifecycle-rules), so signed and of a type the receiver takes, it is accepted.
 * Without it, whether a run reaches the 202 side at all turns on its seed (the fuzzed arm's legal
 * combinations of type, reference and state are few).
 */
const acceptable = fc.constantFrom('DELIVERED', 'SHIPPED', 'RETURNED').map((sourceState) => JSON.stringify(buildEvent(SNAPSHOT, DEMO_PROOFS.current, { sourceState })));
const body = fc.oneof(
  { weight: 6, arbitrary: event },
  { weight: 1, arbitrary: acceptable },
  { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '{"__proto__":{"x":1}}', '"x"') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
);
const signing = fc.constantFrom('valid', 'valid-rotated', 'other-source', 'stale', 'none', 'garbled', 'v1a-garbage', 'dotted-id');
/** 'auto': the receiver of the body's type (when it has one), so that signed events reach the rules. */
const receiver = fc.oneof({ weight: 4, arbitrary: fc.constant('auto') }, { weight: 1, arbitrary: fc.constantFrom('/v1/lifecycle/events', '/v1/webhooks/commerce-platform', '/v1/webhooks/unknown-source', '/v1/webhooks/%ZZ') });
function receiverOf(choice: string, b: string): string {
  if (choice !== 'auto') return choice;
  try {
    return senderOf(String((JSON.parse(b) as { type?: unknown }).type)).path;
  } catch {
    return '/v1/lifecycle/events';
  }
}
const contentType = fc.constantFrom('application/cloudevents+json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded');

function headersFor(kind: string, path: string, b: string): Record<string, string> {
  const source = path === '/v1/lifecycle/events' ? 'service-platform' : 'commerce-platform';
  const now = Math.floor(Date.now() / 1000);
  switch (kind) {
    case 'valid':
      return signedHeaders(b, [secrets[source]]);
    case 'valid-rotated':
      return signedHeaders(b, ['whsec_' + Buffer.alloc(32, 5).toString('base64'), secrets[source]]);
    case 'other-source':
      return signedHeaders(b, [secrets[source === 'service-platform' ? 'commerce-platform' : 'service-platform']]);
    case 'stale':
      return signedHeaders(b, [secrets[source]], { timestampSeconds: now - 3600 });
    case 'none':
      return {};
    case 'garbled':
      return { 'webhook-id': 'msg_x', 'webhook-timestamp': String(now), 'webhook-signature': 'v1,,, v1a, ,v1' };
    case 'v1a-garbage':
      return { 'webhook-id': 'msg_y', 'webhook-timestamp': String(now), 'webhook-signature': `v1a,${Buffer.alloc(64, 1).toString('base64')}` };
    default:
      return { ...signedHeaders(b, [secrets[source]]), 'webhook-id': 'a.b' };
  }
}

test(`${RUNS} fuzzed deliveries: 202 or problem details, no 5xx but 503, the service keeps answering`, async () => {
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(fc.record({ body, signing, receiver, contentType }), async ({ body: b, signing: kind, receiver: choice, contentType: type }) => {
      const path = receiverOf(choice, b);
      const res = await deliver(service.url, path, b, { ...headersFor(kind, path, b), 'content-type': type });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const where = `${kind} ${path} ${res.status}`;
      expect([where, res.status >= 500 && res.status !== 503]).toEqual([where, false]);
      if (res.status === 202) {
        expect(res.body.schemaVersion).toBe('svc.ingress-receipt.v1');
        expect(kind.startsWith('valid')).toBe(true);
        return;
      }
      expect([where, res.headers.get('content-type')]).toEqual([where, expect.stringMatching(/^application\/problem\+json/)]);
      expect(res.body).toMatchObject({ status: res.status, service: 'public-trust-verification-service' });
      for (const field of ['type', 'title', 'detail', 'instance', 'code', 'correlationId']) expect([where, field, typeof res.body[field]]).toEqual([where, field, 'string']);
      if (!kind.startsWith('valid') && res.status !== 415 && res.status !== 413 && res.status !== 404 && res.status !== 400) expect([where, res.status]).toEqual([where, 401]);
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  // Both sides were reached: accepted events and refusals past the signature check.
  const count = (s: number) => statuses.get(s) ?? 0;
  const seen = JSON.stringify(Object.fromEntries(statuses));
  expect([seen, count(202) > 0, count(422) + count(409) + count(404) > RUNS * 0.05, count(401) > RUNS * 0.1]).toEqual([seen, true, true, true]);
  expect((await fetch(`${service.url}/health`)).status).toBe(200);
}, 240_000);
