import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { operations } from '../../functions/contract/operations';
import { INGRESS_SOURCES } from '../../functions/contract/ingress-values';
import { parseVerificationKeys, verifyDelivery } from '../../functions/domain/ingress/signature';
import { buildImportDocument, gatewayPath, PLACEHOLDER_TARGETS } from '../../lib/contract/import-document';
import { buildEvent, deliver, devSecrets, signedHeaders } from '../../lib/ingress/emit';
import { DEV_INGRESS_SECRETS_FILE, type LocalService } from '../../lib/local/service';
import { expectProblem, OBSERVED, SNAPSHOT } from '../support/ingress';
import { getJson, startTestService } from '../support/local';

/**
 * The receivers' published contract says what they require (docs/ingress.md#the-signature-scheme):
 * each declares the Standard Webhooks headers as required header parameters and requires the
 * signature's security scheme, and what it declares is what its code checks. The declared names
 * are compared with what the running receiver refuses a delivery without; the declared forms with
 * what the signature check (the module the receivers run) accepts, over seeded random values.
 */
const SEED = 20261124;
const secrets = devSecrets(DEV_INGRESS_SECRETS_FILE);

let service: LocalService;
let openapi: any;
beforeAll(async () => {
  service = await startTestService(new Date(), { sequencer: false });
  openapi = (await getJson(`${service.url}/developers/openapi.json`)).body;
});
afterAll(() => service?.close());

/** The receivers: the operations whose functions may write received events. */
const receivers = operations.filter((op) => op.integration.kind === 'lambda' && op.integration.access === 'ingress-write');

/** Where each receiver is reached with one of its sources, and a valid event for it. */
const DELIVERY: Record<string, { url: string; sourceId: string; body: () => string }> = {
  '/v1/lifecycle/events': { url: '/v1/lifecycle/events', sourceId: 'service-platform', body: () => JSON.stringify(buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' })) },
  '/v1/webhooks/{sourceId}': { url: '/v1/webhooks/commerce-platform', sourceId: 'commerce-platform', body: () => JSON.stringify(buildEvent(SNAPSHOT, DEMO_PROOFS.current, { sourceState: 'DELIVERED' })) },
};

const declaredHeaders = (parameters: any[]) => parameters.filter((p) => p.in === 'header' && p.required).map((p) => String(p.name).toLowerCase()).sort();

test('the receivers are the two of the issue, and every one has a delivery here', () => {
  expect(receivers.map((op) => `${op.method} ${op.path}`).sort()).toEqual(['POST /v1/lifecycle/events', 'POST /v1/webhooks/{sourceId}']);
  for (const op of receivers) expect(INGRESS_SOURCES[DELIVERY[op.path].sourceId as keyof typeof INGRESS_SOURCES]).toBeDefined();
});

describe.each(receivers.map((op) => [op.operationId, op] as const))('%s', (_id, op) => {
  const declared = () => declaredHeaders(openapi.paths[op.path].post.parameters);
  const { url, sourceId, body } = DELIVERY[op.path];

  test('declares as required headers exactly those its receiver refuses a delivery without', async () => {
    expect(declared()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    // Nothing at all: the receiver names every header it checks.
    const b = body();
    const bare = expectProblem(await deliver(service.url, url, b, {}), 401, 'WEBHOOK_SIGNATURE_MISSING');
    expect([...bare.missingHeaders].sort()).toEqual(declared());
    // A correctly signed delivery without one of them is refused naming it, and only it.
    for (const name of declared()) {
      const headers = signedHeaders(b, [secrets[sourceId]]);
      delete headers[name];
      const problem = expectProblem(await deliver(service.url, url, b, headers), 401, 'WEBHOOK_SIGNATURE_MISSING');
      expect([name, problem.missingHeaders]).toEqual([name, [name]]);
    }
    // With them it is accepted: nothing else is required.
    expect((await deliver(service.url, url, b, signedHeaders(b, [secrets[sourceId]]))).status).toBe(202);
  });

  test('the API Gateway import document declares the same required headers', () => {
    const imported = buildImportDocument(PLACEHOLDER_TARGETS).paths[gatewayPath(op)].post;
    expect(declaredHeaders(imported.parameters)).toEqual(declared());
  });

  test('requires the Standard Webhooks signature scheme, whose header is one it requires; answers 401 as documented', () => {
    const operation = openapi.paths[op.path].post;
    expect(operation.security).toEqual([{ StandardWebhooksSignature: [] }]);
    const scheme = openapi.components.securitySchemes.StandardWebhooksSignature;
    expect(scheme).toMatchObject({ type: 'apiKey', in: 'header', name: 'webhook-signature' });
    expect(declared()).toContain(scheme.name);
    for (const words of ['v1', 'HMAC-SHA256', 'v1a', 'Ed25519', 'whsec_', 'whpk_', 'IngressSecretsArn', 'SOURCE_GATED']) expect(scheme.description).toContain(words);
    expect(operation.responses['401']).toBeDefined();
  });
});

test('every other operation stays public: security [] and no required header', () => {
  const others = operations.filter((op) => !receivers.includes(op));
  expect(others.length).toBeGreaterThan(20);
  for (const op of others) {
    const operation = openapi.paths[op.path][op.method.toLowerCase()];
    expect([op.operationId, operation.security]).toEqual([op.operationId, []]);
    expect([op.operationId, declaredHeaders(operation.parameters ?? [])]).toEqual([op.operationId, []]);
  }
  expect(openapi.security).toEqual([]);
  expect(Object.keys(openapi.components.securitySchemes)).toEqual(['StandardWebhooksSignature']);
});

describe('the declared forms of the headers are the forms the signature check accepts (seeded)', () => {
  const keys = parseVerificationKeys([secrets['service-platform']]).keys;
  const ajv = new Ajv2020({ strict: false });
  const schemaOf = (name: string) => openapi.paths['/v1/lifecycle/events'].post.parameters.find((p: any) => p.name === name).schema;
  const body = '{"a":1}';

  /** Valid headers for `body`, signed now; the header under test replaced by `value`. */
  function verdictWith(name: string, value: string) {
    const headers: Record<string, string> = { ...signedHeaders(body, [secrets['service-platform']]), [name]: value };
    return verifyDelivery(body, headers, keys);
  }
  /** Whether the check refused the delivery because of that header's presence or form (not its signature's verification, nor its time). */
  const refusedForForm = (name: string, value: string) => {
    const verdict = verdictWith(name, value);
    return !verdict.ok && (verdict.malformed === name || (verdict.missing ?? []).includes(name as never));
  };

  const base64 = (min: number, max: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9+/]{${min},${max}}={0,2}$`));
  const entry = fc.oneof(
    fc.tuple(fc.constantFrom('v1', 'v1a'), base64(1, 200)).map(([v, b]) => `${v},${b}`),
    fc.tuple(fc.constantFrom('v1', 'v1a', 'v2', 'V1', 'v1b', ''), fc.string({ maxLength: 8 }), base64(0, 220)).map(([v, sep, b]) => `${v}${sep}${b}`),
    fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes(' ')),
  );
  const signatureList = fc
    .tuple(fc.array(entry, { maxLength: 22 }), fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 22, maxLength: 22 }), fc.nat({ max: 2 }), fc.nat({ max: 2 }))
    .map(([entries, gaps, lead, trail]) => ' '.repeat(lead) + entries.map((e, i) => (i === 0 ? e : ' '.repeat(gaps[i]) + e)).join('') + ' '.repeat(trail));
  const VALUES: Record<string, fc.Arbitrary<string>> = {
    'webhook-id': fc.oneof(fc.string({ maxLength: 140 }), fc.stringMatching(/^[A-Za-z0-9_.:-]{0,132}$/), fc.stringMatching(/^[A-Za-z0-9_-]{120,132}$/)),
    'webhook-timestamp': fc.oneof(fc.string({ maxLength: 16 }), fc.stringMatching(/^[0-9 +-]{0,14}$/), fc.integer({ min: 0, max: 2 ** 31 }).map(String)),
    'webhook-signature': fc.oneof(
      fc.string({ maxLength: 40 }),
      signatureList,
      // The first v1 or v1a entry after k others: read among the first 16 entries, or not at all.
      fc.tuple(fc.integer({ min: 0, max: 20 }), fc.constantFrom('v1', 'v1a'), base64(1, 44)).map(([k, v, b]) => [...Array(k).fill('v2,c2lnbmF0dXJl'), `${v},${b}`].join(' ')),
      // Longer than the check reads, or nearly.
      fc.tuple(base64(200, 200), fc.integer({ min: 18, max: 22 })).map(([b, n]) => Array(n).fill(`v1,${b}`).join(' ')),
    ),
  };

  test.each(Object.keys(VALUES))('%s: a value is refused for its form exactly when the declared schema refuses it', (name) => {
    const validate = ajv.compile(schemaOf(name));
    // Values a sender makes are valid under both.
    const good = signedHeaders(body, [secrets['service-platform']])[name];
    expect([validate(good), refusedForForm(name, good)]).toEqual([true, false]);
    fc.assert(
      fc.property(VALUES[name], (value) => {
        expect({ value, refused: refusedForForm(name, value) }).toEqual({ value, refused: !validate(value) });
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  test('the comparison can fail: a schema one character narrower than the check is caught', () => {
    const narrower = ajv.compile({ ...schemaOf('webhook-id'), pattern: '^[A-Za-z0-9_]{1,128}$' });
    expect(refusedForForm('webhook-id', 'msg-1')).toBe(false);
    expect(narrower('msg-1')).toBe(false);
  });
});
