import { generateKeyPairSync, sign as edSign } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { forgetIngressKeys } from '../../functions/config/ingress-keys';
import { INGRESS_MAX_BODY_BYTES } from '../../functions/contract/ingress';
import { waitingOf } from '../../functions/store/dynamodb/pending-items';
import { pendingPk } from '../../functions/store/layout';
import { buildEvent, deliver, devSecrets, newWebhookId, signedHeaders } from '../../lib/ingress/emit';
import { DEV_INGRESS_SECRETS_FILE, localClient, LOCAL_TABLE, type LocalService } from '../../lib/local/service';
import { startTestService } from '../support/local';
import { CREDENTIAL_CHANGED, emit, expectProblem, OBSERVED, SNAPSHOT, STATE_CHANGED } from '../support/ingress';

let service: LocalService;
beforeAll(async () => {
  // The receivers alone: deliveries stay pending, so every test meets the demo records as loaded
  // (test/e2e/sequencer.test.ts integrates them).
  service = await startTestService(new Date(), { sequencer: false });
});
afterAll(() => service?.close());

const secrets = devSecrets(DEV_INGRESS_SECRETS_FILE);

async function itemAt(pk: string) {
  const client = localClient(service.storeEndpoint);
  try {
    const out = await client.send(new GetItemCommand({ TableName: LOCAL_TABLE, Key: { pk: { S: pk }, sk: { S: '#' } }, ConsistentRead: true }));
    return out.Item;
  } finally {
    client.destroy();
  }
}

/** The item stored for a delivery. */
const storedItem = (sourceId: string, webhookId: string) => itemAt(pendingPk(sourceId, webhookId));

/** The event a delivery carried, as stored under its identity (the item the sequencer integrates). */
async function storedEvent(sourceId: string, webhookId: string) {
  const eventKey = (await storedItem(sourceId, webhookId))?.eventKey?.S;
  return eventKey ? itemAt(eventKey) : undefined;
}

describe('accepted events', () => {
  test('a signed state change of a living object is stored, then answered 202 with the receipt', async () => {
    const res = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      schemaVersion: 'svc.ingress-receipt.v1',
      status: 'ACCEPTED',
      sourceId: 'service-platform',
      eventType: STATE_CHANGED,
      subject: DEMO_OBJECTS.current,
      effect: 'ADVANCES_CURRENT_STATE',
      sequencing: 'PENDING',
    });
    const item = await storedEvent('service-platform', res.sent.headers['webhook-id']);
    // Read as the sequencer reads it: the raw event stored once, what it states read back from it.
    const stored = waitingOf(item!);
    expect(stored.event.raw).toBe(res.sent.body);
    expect(stored.identity.id).toBe(JSON.parse(res.sent.body).id);
    expect(stored.sequencing).toBe('PENDING');
    expect(stored.status).toBe(202);
    expect(stored.event.reference).toBe(DEMO_OBJECTS.current);
    expect(stored.answer).toEqual({ status: 202, receipt: res.body });
  });

  test('an authority observation confirming the state held is accepted (it is what keeps fresh true)', async () => {
    const res = await emit(service.url, OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' });
    expect([res.status, res.body.effect]).toEqual([202, 'CONFIRMS_CURRENT_STATE']);
  });

  test('a credential status change and a commerce-platform source snapshot are accepted by their receivers', async () => {
    const credential = await emit(service.url, CREDENTIAL_CHANGED, DEMO_CREDENTIALS.active, { previousStatus: 'ACTIVE', status: 'SUSPENDED' });
    expect([credential.status, credential.sent.path]).toEqual([202, '/v1/lifecycle/events']);
    const snapshot = await emit(service.url, SNAPSHOT, DEMO_PROOFS.current, { sourceState: 'DELIVERED' });
    expect([snapshot.status, snapshot.sent.path, snapshot.body.sourceId]).toEqual([202, '/v1/webhooks/commerce-platform', 'commerce-platform']);
  });

  test('application/json is accepted as well as application/cloudevents+json', async () => {
    const body = JSON.stringify(buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }));
    const res = await deliver(service.url, '/v1/lifecycle/events', body, { ...signedHeaders(body, [secrets['service-platform']]), 'content-type': 'application/json' });
    expect(res.status).toBe(202);
  });

  test('several signatures in one header (key rotation): one valid is enough', async () => {
    const body = JSON.stringify(buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }));
    const headers = signedHeaders(body, ['whsec_' + Buffer.alloc(32, 7).toString('base64'), secrets['service-platform']]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    const res = await deliver(service.url, '/v1/lifecycle/events', body, headers);
    expect(res.status).toBe(202);
  });
});

describe('rules of order', () => {
  test('an event older than the record\'s newest entry is recorded as history, never rolling the current state back', async () => {
    const old = new Date(Date.now() - 3 * 86_400_000 - 3_600_000).toISOString(); // between SHIPPED (-3 d) and DELIVERED (-1 d)
    const res = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'SHIPPED', state: 'DELIVERED' }, { at: old });
    expect([res.status, res.body.effect, res.body.eventTime]).toEqual([202, 'RECORDED_AS_HISTORY', old]);
    const view = (await (await fetch(`${service.url}/v1/objects/${DEMO_OBJECTS.current}`)).json()) as any;
    expect(view.current.state).toBe('DELIVERED');
  });

  test('a late event must still be a transition the rules allow', async () => {
    const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const res = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'ARCHIVED', state: 'PLACED' }, { at: old });
    expectProblem(res, 409, 'TRANSITION_FORBIDDEN');
  });

  test('an event stating an instant beyond the replay window in the future is refused with the field', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const res = await emit(service.url, OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }, { at: future });
    expect(expectProblem(res, 422, 'INVALID_REQUEST').field).toBe('data.observedAt');
  });
});

describe('refusals', () => {
  const body = () => JSON.stringify(buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }));

  test.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('401 WEBHOOK_SIGNATURE_MISSING without %s, naming it', async (name) => {
    const b = body();
    const headers = signedHeaders(b, [secrets['service-platform']]);
    delete (headers as Record<string, string>)[name];
    const res = await deliver(service.url, '/v1/lifecycle/events', b, headers);
    const problem = expectProblem(res, 401, 'WEBHOOK_SIGNATURE_MISSING');
    expect(problem.reason).toBe('SIGNATURE_MISSING');
    expect(problem.detail).toContain(name);
  });

  test('401 WEBHOOK_SIGNATURE_INVALID for a signature by another secret, a changed body, or a garbled header; no secret is echoed', async () => {
    const b = body();
    const other = signedHeaders(b, ['whsec_' + Buffer.alloc(32, 1).toString('base64')]);
    const good = signedHeaders(b, [secrets['service-platform']]);
    for (const [sent, headers] of [
      [b, other],
      [b.replace('DELIVERED', 'DELIVERED '), good],
      [b, { ...good, 'webhook-signature': 'v1,not-base64!' }],
      [b, { ...good, 'webhook-signature': 'v2,' + good['webhook-signature'].slice(3) }],
      [b, { ...good, 'webhook-id': 'has.dot' }],
    ] as const) {
      const res = await deliver(service.url, '/v1/lifecycle/events', sent, headers);
      const problem = expectProblem(res, 401, 'WEBHOOK_SIGNATURE_INVALID');
      expect(problem.reason).toBe('SIGNATURE_INVALID');
      const text = JSON.stringify(problem);
      for (const secret of Object.values(secrets)) expect(text).not.toContain(secret.slice(6, 20));
      expect(text).not.toContain(good['webhook-signature'].slice(3));
    }
  });

  test('401 WEBHOOK_TIMESTAMP_OUT_OF_WINDOW for a delivery signed 6 minutes ago or 6 minutes ahead, even correctly signed', async () => {
    for (const offset of [-360, 360]) {
      const b = body();
      const headers = signedHeaders(b, [secrets['service-platform']], { timestampSeconds: Math.floor(Date.now() / 1000) + offset });
      const res = await deliver(service.url, '/v1/lifecycle/events', b, headers);
      const problem = expectProblem(res, 401, 'WEBHOOK_TIMESTAMP_OUT_OF_WINDOW');
      expect(problem.reason).toBe('TIMESTAMP_OUT_OF_WINDOW');
      expect(problem.detail).toMatch(offset < 0 ? /s old/ : /in the future/);
    }
  });

  test(`413 for a body over ${INGRESS_MAX_BODY_BYTES} bytes, before verification`, async () => {
    const b = JSON.stringify({ ...buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }), pad: 'x'.repeat(INGRESS_MAX_BODY_BYTES) });
    const res = await deliver(service.url, '/v1/lifecycle/events', b, signedHeaders(b, [secrets['service-platform']]));
    expect(expectProblem(res, 413, 'PAYLOAD_TOO_LARGE').maxBodyBytes).toBe(INGRESS_MAX_BODY_BYTES);
  });

  test('415 for a body that is not labelled JSON', async () => {
    const b = body();
    const res = await deliver(service.url, '/v1/lifecycle/events', b, { ...signedHeaders(b, [secrets['service-platform']]), 'content-type': 'text/plain' });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('422 with field paths for signed bodies that are not a valid canonical event', async () => {
    const valid = buildEvent(STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' }) as any;
    const cases: [unknown, string][] = [
      [{ ...valid, data: { ...valid.data, customerEmail: 'a@b.c' } }, 'data.customerEmail'],
      [{ ...valid, data: { ...valid.data, state: 'LOST' } }, 'data.state'],
      [{ ...valid, data: { ...valid.data, disclosure: { containsCustomerPii: true, containsPaymentAccountData: false } } }, 'data.disclosure.containsCustomerPii'],
      [{ ...valid, specversion: '0.3' }, 'specversion'],
      [{ ...valid, type: 'svc.unknown.v1' }, 'type'],
      [{ ...valid, type: SNAPSHOT }, 'type'],
      [{ ...valid, subject: 'ORD-2026-0002' }, 'subject'],
      [(({ time: _t, ...rest }) => rest)(valid), 'time'],
      ['not json', '(body)'],
      [[1, 2], '(body)'],
    ];
    for (const [event, field] of cases) {
      const b = typeof event === 'string' ? event : JSON.stringify(event);
      const res = await deliver(service.url, '/v1/lifecycle/events', b, signedHeaders(b, [secrets['service-platform']]));
      const problem = expectProblem(res, 422, 'INVALID_REQUEST');
      expect([field, problem.field]).toEqual([field, field]);
      expect(Array.isArray(problem.errors)).toBe(true);
      expect(problem.errors[0].pointer).toEqual(expect.any(String));
    }
  });

  test('409 for transitions the lifecycle rules forbid', async () => {
    const terminal = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.historical, { objectType: 'DEVICE', state: 'IN_SERVICE' });
    expect(expectProblem(terminal, 409, 'TRANSITION_FORBIDDEN').detail).toMatch(/terminal/);
    const revoked = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.revoked, { state: 'SHIPPED' });
    expectProblem(revoked, 409, 'TRANSITION_FORBIDDEN');
    const same = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.current, { state: 'DELIVERED' });
    expectProblem(same, 409, 'TRANSITION_FORBIDDEN');
    const contradicting = await emit(service.url, OBSERVED, DEMO_OBJECTS.current, { state: 'SHIPPED' });
    expectProblem(contradicting, 409, 'TRANSITION_FORBIDDEN');
    const revokedCredential = await emit(service.url, CREDENTIAL_CHANGED, DEMO_CREDENTIALS.revoked, { status: 'ACTIVE' });
    expect(expectProblem(revokedCredential, 409, 'TRANSITION_FORBIDDEN').detail).toMatch(/terminal/);
    const wrongKind = await emit(service.url, OBSERVED, DEMO_PROOFS.current, { state: 'DELIVERED' });
    expectProblem(wrongKind, 409, 'WRONG_RECORD_KIND');
  });

  test('404 for a reference without a record (events never create records) and for an unknown source', async () => {
    const missing = await emit(service.url, STATE_CHANGED, 'ORD-2026-9999', { state: 'PLACED' });
    expectProblem(missing, 404, 'NOT_FOUND');
    const b = body();
    const unknown = await deliver(service.url, '/v1/webhooks/no-such-source', b, signedHeaders(b, [secrets['service-platform']]));
    expectProblem(unknown, 404, 'UNKNOWN_SOURCE');
    const lifecycleSource = await deliver(service.url, '/v1/webhooks/service-platform', b, signedHeaders(b, [secrets['service-platform']]));
    expectProblem(lifecycleSource, 404, 'UNKNOWN_SOURCE');
    const badId = await deliver(service.url, '/v1/webhooks/X', b, signedHeaders(b, [secrets['service-platform']]));
    expectProblem(badId, 400, 'INVALID_PARAMETER');
  });
});

describe('idempotency', () => {
  test('a retry of the same delivery answers the same status and has no second effect', async () => {
    const first = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' });
    expect(first.status).toBe(202);
    const id = first.sent.headers['webhook-id'];
    const before = await storedItem('service-platform', id);
    // The same delivery again, later (a new timestamp and signature, as a sender's retry carries).
    await new Promise((r) => setTimeout(r, 20));
    const retry = await deliver(service.url, first.sent.path, first.sent.body, signedHeaders(first.sent.body, [secrets['service-platform']], { id }));
    expect(retry.status).toBe(202);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('webhook-replayed')).toBe('true');
    expect(await storedItem('service-platform', id)).toEqual(before);
  });

  test('a refused delivery is refused the same way on retry', async () => {
    const first = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.revoked, { state: 'SHIPPED' });
    expectProblem(first, 409, 'TRANSITION_FORBIDDEN');
    const retry = await deliver(service.url, first.sent.path, first.sent.body, first.sent.headers);
    expect(expectProblem(retry, 409, 'TRANSITION_FORBIDDEN').detail).toBe(first.body.detail);
    expect(retry.headers.get('webhook-replayed')).toBe('true');
  });

  test('a webhook-id reused for another body is refused (409), the first stays', async () => {
    const first = await emit(service.url, OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' });
    const id = first.sent.headers['webhook-id'];
    const other = JSON.stringify(buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }));
    const res = await deliver(service.url, first.sent.path, other, signedHeaders(other, [secrets['service-platform']], { id }));
    expectProblem(res, 409, 'WEBHOOK_ID_REUSED');
    expect((await storedEvent('service-platform', id))?.event?.S).toBe(first.sent.body);
  });

  test('20 concurrent copies of one delivery: all answered 202 with the same receipt, exactly one write', async () => {
    const body = JSON.stringify(buildEvent(STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' }));
    const headers = signedHeaders(body, [secrets['service-platform']]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(service.url, '/v1/lifecycle/events', body, headers)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    const first = answers.filter((a) => a.headers.get('webhook-replayed') !== 'true');
    expect(first).toHaveLength(1);
    for (const a of answers) expect(a.body).toEqual(first[0].body);
    const item = await storedEvent('service-platform', headers['webhook-id']);
    expect(item?.receivedAt?.S).toBe(first[0].body.receivedAt);
  });
});

describe('keys from configuration', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ingress-keys-'));
  });
  afterAll(async () => {
    process.env.INGRESS_SECRETS_FILE = DEV_INGRESS_SECRETS_FILE;
    forgetIngressKeys();
    await rm(dir, { recursive: true, force: true });
  });

  async function configure(document: unknown) {
    const file = path.join(dir, `${newWebhookId()}.json`);
    await writeFile(file, JSON.stringify(document));
    process.env.INGRESS_SECRETS_FILE = file;
    forgetIngressKeys();
  }

  test('a source the deployment has not activated answers 503 SOURCE_GATED saying so; unsigned input is never accepted', async () => {
    await configure({ 'service-platform': secrets['service-platform'] });
    const body = JSON.stringify(buildEvent(SNAPSHOT, DEMO_PROOFS.current, { sourceState: 'DELIVERED' }));
    for (const headers of [signedHeaders(body, [secrets['commerce-platform']]), {}]) {
      const res = await deliver(service.url, '/v1/webhooks/commerce-platform', body, headers);
      const problem = expectProblem(res, 503, 'SOURCE_GATED');
      expect(problem).toMatchObject({ sourceId: 'commerce-platform', liveState: 'GATED' });
      expect(problem.detail).toMatch(/gated/);
    }
    delete process.env.INGRESS_SECRETS_FILE;
    forgetIngressKeys();
    const lifecycle = await emit(service.url, OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' });
    expectProblem(lifecycle, 503, 'SOURCE_GATED');
  });

  test('v1a: an Ed25519 signature verifies against the whpk_ public key configured for the source', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const whpk = 'whpk_' + Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
    await configure({ 'commerce-platform': [whpk] });
    const body = JSON.stringify(buildEvent(SNAPSHOT, DEMO_PROOFS.current, { sourceState: 'DELIVERED' }));
    const id = newWebhookId();
    const ts = String(Math.floor(Date.now() / 1000));
    const signature = edSign(null, Buffer.from(`${id}.${ts}.${body}`), privateKey).toString('base64');
    const ok = await deliver(service.url, '/v1/webhooks/commerce-platform', body, { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1a,${signature}` });
    expect(ok.status).toBe(202);
    const forged = edSign(null, Buffer.from(`${id}.${ts}.${body} `), privateKey).toString('base64');
    const bad = await deliver(service.url, '/v1/webhooks/commerce-platform', body, { 'webhook-id': newWebhookId(), 'webhook-timestamp': ts, 'webhook-signature': `v1a,${forged}` });
    expectProblem(bad, 401, 'WEBHOOK_SIGNATURE_INVALID');
    // A v1 signature made with a key that is not configured for the source does not verify either.
    const v1 = await deliver(service.url, '/v1/webhooks/commerce-platform', body, signedHeaders(body, [secrets['commerce-platform']]));
    expectProblem(v1, 401, 'WEBHOOK_SIGNATURE_INVALID');
  });
});

describe('durability: 202 only after the write', () => {
  // Last in this file: it stops the embedded store.
  test('with the store gone, a correctly signed, valid event is answered 503 with Retry-After, never 202', async () => {
    await service.store!.close();
    const res = await emit(service.url, OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' });
    expectProblem(res, 503, 'DEPENDENCY_UNAVAILABLE');
    expect(res.headers.get('retry-after')).toBe('1');
  }, 20_000);
});
