import { createPrivateKey, createPublicKey, sign as edSign, verify as edVerify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { parseVerificationKeys, verifyDelivery } from '../../functions/domain/ingress/signature';

/**
 * Standard Webhooks verification. The v1 vectors are the ones published with the specification's
 * reference library (standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts):
 * secret MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw, id msg_p5jXN8AQM9LWM0D4loKWxJek, timestamp 1614265330,
 * body {"test": 2432232314} -> v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=. The specification
 * publishes no v1a vector; v1a is checked with the RFC 8032 Ed25519 test key (TEST 1) so the
 * Ed25519 primitive itself is pinned to a published vector.
 */
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TS = 1614265330;
const BODY = '{"test": 2432232314}';
const EXPECTED = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

const { keys } = parseVerificationKeys([SECRET]);
const headers = (signature: string, ts = TS, id = ID) => ({ 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature });

beforeEach(() => jest.useFakeTimers({ now: TS * 1000 + 10_000 }));
afterEach(() => jest.useRealTimers());

describe('v1 (HMAC-SHA256, the standardwebhooks package)', () => {
  test('the published signing vector', () => {
    expect(new Webhook(SECRET).sign(ID, new Date(TS * 1000), BODY)).toBe(EXPECTED);
  });

  test('the published vector verifies at its instant', () => {
    expect(verifyDelivery(BODY, headers(EXPECTED), keys)).toEqual({ ok: true, webhookId: ID, timestamp: TS });
  });

  test('several signatures, one valid (rotation), other versions skipped', () => {
    const list = ['v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=', 'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=', EXPECTED, 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc='];
    expect(verifyDelivery(BODY, headers(list.join(' ')), keys).ok).toBe(true);
  });

  test('several configured keys (rotation on the receiving side): any one verifies', () => {
    const both = parseVerificationKeys(['whsec_' + Buffer.alloc(32, 9).toString('base64'), SECRET]).keys;
    expect(verifyDelivery(BODY, headers(EXPECTED), both).ok).toBe(true);
  });

  test.each([
    ['a changed body', '{"test": 2432232315}', EXPECTED],
    ['a partial signature', BODY, EXPECTED.slice(0, 8)],
    ['an empty signature', BODY, 'v1,'],
    ['a garbled signature', BODY, 'v1,dawfeoifkpqwoekfpqoekf'],
    ['only other versions', BODY, 'v2,' + EXPECTED.slice(3)],
  ])('refuses %s as SIGNATURE_INVALID', (_what, body, signature) => {
    expect(verifyDelivery(body, headers(signature), keys)).toMatchObject({ ok: false, refusal: 'SIGNATURE_INVALID' });
  });

  test('refuses a malformed id (a dot) or timestamp as SIGNATURE_INVALID', () => {
    expect(verifyDelivery(BODY, headers(EXPECTED, TS, 'msg.1'), keys)).toMatchObject({ ok: false, refusal: 'SIGNATURE_INVALID' });
    expect(verifyDelivery(BODY, { ...headers(EXPECTED), 'webhook-timestamp': 'hello' }, keys)).toMatchObject({ ok: false, refusal: 'SIGNATURE_INVALID' });
    expect(verifyDelivery(BODY, { ...headers(EXPECTED), 'webhook-timestamp': '1614265330abc' }, keys)).toMatchObject({ ok: false, refusal: 'SIGNATURE_INVALID' });
  });

  test.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('refuses a delivery without %s as SIGNATURE_MISSING', (name) => {
    const h: Record<string, string> = headers(EXPECTED);
    delete h[name];
    const verdict = verifyDelivery(BODY, h, keys);
    expect(verdict).toMatchObject({ ok: false, refusal: 'SIGNATURE_MISSING' });
    expect((verdict as { detail: string }).detail).toContain(name);
  });

  test('the replay window is 5 minutes either way, inclusive', () => {
    for (const [offset, ok] of [
      [-300, true],
      [300, true],
      [-301, false],
      [301, false],
    ] as const) {
      jest.setSystemTime((TS - offset) * 1000);
      const verdict = verifyDelivery(BODY, headers(EXPECTED), keys);
      expect([offset, verdict.ok]).toEqual([offset, ok]);
      if (!verdict.ok) expect(verdict.refusal).toBe('TIMESTAMP_OUT_OF_WINDOW');
    }
  });

  test('a refusal never repeats the secret or the expected signature', () => {
    const verdict = verifyDelivery(BODY, headers('v1,AAAA'), keys);
    expect(JSON.stringify(verdict)).not.toMatch(/MfKQ9r8G|g0hM9SsE/);
  });
});

describe('v1a (Ed25519 with a whpk_ public key, node:crypto)', () => {
  // RFC 8032 section 7.1, TEST 1.
  const SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
  const PUBLIC = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
  const RFC_SIGNATURE = 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';
  const privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(SEED, 'hex').toString('base64url'), x: Buffer.from(PUBLIC, 'hex').toString('base64url') }, format: 'jwk' });
  const whpk = 'whpk_' + Buffer.from(PUBLIC, 'hex').toString('base64');
  const v1a = parseVerificationKeys([whpk]).keys;

  test('the Ed25519 primitive reproduces RFC 8032 TEST 1 (empty message)', () => {
    expect(edSign(null, Buffer.alloc(0), privateKey).toString('hex')).toBe(RFC_SIGNATURE);
    expect(edVerify(null, Buffer.alloc(0), createPublicKey(privateKey), Buffer.from(RFC_SIGNATURE, 'hex'))).toBe(true);
  });

  const signed = (body: string, id = ID, ts = TS) => 'v1a,' + edSign(null, Buffer.from(`${id}.${ts}.${body}`), privateKey).toString('base64');

  test('a signature over {id}.{timestamp}.{body} verifies', () => {
    expect(verifyDelivery(BODY, headers(signed(BODY)), v1a)).toEqual({ ok: true, webhookId: ID, timestamp: TS });
  });

  test('beside v1 signatures, in any order', () => {
    expect(verifyDelivery(BODY, headers(`${EXPECTED} ${signed(BODY)}`), v1a).ok).toBe(true);
    const both = parseVerificationKeys([SECRET, whpk]).keys;
    expect(verifyDelivery(BODY, headers(`${signed(BODY)} ${EXPECTED}`), both).ok).toBe(true);
  });

  test('a changed body, id or timestamp does not verify', () => {
    expect(verifyDelivery(BODY + ' ', headers(signed(BODY)), v1a)).toMatchObject({ ok: false, refusal: 'SIGNATURE_INVALID' });
    expect(verifyDelivery(BODY, headers(signed(BODY), TS, 'msg_other'), v1a)).toMatchObject({ ok: false, refusal: 'SIGNATURE_INVALID' });
    expect(verifyDelivery(BODY, headers(signed(BODY, ID, TS + 1), TS), v1a)).toMatchObject({ ok: false, refusal: 'SIGNATURE_INVALID' });
  });

  test('a v1 HMAC of the secret does not pass for a v1a key, nor a v1a signature for a v1 secret', () => {
    expect(verifyDelivery(BODY, headers(EXPECTED), v1a).ok).toBe(false);
    expect(verifyDelivery(BODY, headers(signed(BODY)), keys).ok).toBe(false);
  });
});

describe('configured keys', () => {
  test('whsec_ secrets of 24 to 64 bytes and 32-byte whpk_ keys are taken; anything else is ignored by position', () => {
    const { keys: parsed, ignored } = parseVerificationKeys([
      SECRET,
      'whsec_' + Buffer.alloc(16).toString('base64'),
      'whpk_' + Buffer.alloc(32, 3).toString('base64'),
      'whpk_' + Buffer.alloc(31).toString('base64'),
      'plain-password',
    ]);
    expect([parsed.v1.length, parsed.v1a.length]).toEqual([1, 1]);
    expect(ignored).toEqual([1, 3, 4]);
  });

  test('no key verifies nothing', () => {
    expect(verifyDelivery(BODY, headers(EXPECTED), parseVerificationKeys([]).keys)).toMatchObject({ ok: false, refusal: 'SIGNATURE_INVALID' });
  });
});
