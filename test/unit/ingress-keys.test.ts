import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { forgetIngressKeys, KEY_CACHE_MS, keysForSource } from '../../functions/config/ingress-keys';

/** Where the receivers' keys come from, and what counts as configured (docs/ingress.md#keys). */
let dir: string;
const saved = { file: process.env.INGRESS_SECRETS_FILE, arn: process.env.INGRESS_SECRETS_ARN };
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ingress-keys-unit-'));
  delete process.env.INGRESS_SECRETS_ARN;
});
afterAll(async () => {
  if (saved.file === undefined) delete process.env.INGRESS_SECRETS_FILE;
  else process.env.INGRESS_SECRETS_FILE = saved.file;
  if (saved.arn !== undefined) process.env.INGRESS_SECRETS_ARN = saved.arn;
  forgetIngressKeys();
  await rm(dir, { recursive: true, force: true });
});

async function configure(text: string): Promise<void> {
  const file = path.join(dir, `keys-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, text);
  process.env.INGRESS_SECRETS_FILE = file;
  forgetIngressKeys();
}

const SECRET = 'whsec_' + Buffer.alloc(32, 4).toString('base64');

test('nothing configured: every source is gated', async () => {
  delete process.env.INGRESS_SECRETS_FILE;
  forgetIngressKeys();
  expect(await keysForSource('service-platform')).toEqual({ kind: 'gated' });
});

test('a document that is not a JSON object, or holds no usable key for the source, gates it', async () => {
  for (const text of ['not json', '[]', '"whsec_x"', JSON.stringify({ 'service-platform': 'password' }), JSON.stringify({ 'service-platform': [] }), '{}']) {
    await configure(text);
    expect([text, (await keysForSource('service-platform')).kind]).toEqual([text, 'gated']);
  }
});

test('a whsec_ string, or a list of keys, activates the source; other sources stay gated', async () => {
  await configure(JSON.stringify({ 'service-platform': SECRET }));
  expect((await keysForSource('service-platform')).kind).toBe('keys');
  expect((await keysForSource('commerce-platform')).kind).toBe('gated');
  await configure(JSON.stringify({ 'commerce-platform': ['nonsense', SECRET, 'whpk_' + Buffer.alloc(32, 2).toString('base64')] }));
  const keys = await keysForSource('commerce-platform');
  expect(keys.kind === 'keys' && [keys.keys.v1.length, keys.keys.v1a.length]).toEqual([1, 1]);
});

test('a changed configuration is read again once the cache time has passed', async () => {
  const file = path.join(dir, 'rotating.json');
  await writeFile(file, JSON.stringify({ 'service-platform': SECRET }));
  process.env.INGRESS_SECRETS_FILE = file;
  forgetIngressKeys();
  const t0 = 1_000_000;
  expect((await keysForSource('service-platform', t0)).kind).toBe('keys');
  await writeFile(file, '{}');
  expect((await keysForSource('service-platform', t0 + KEY_CACHE_MS - 1)).kind).toBe('keys');
  expect((await keysForSource('service-platform', t0 + KEY_CACHE_MS + 1)).kind).toBe('gated');
});

test('an unreadable configuration is unavailable (503 with Retry-After at the receiver), not open', async () => {
  process.env.INGRESS_SECRETS_FILE = path.join(dir, 'missing', 'keys.json');
  forgetIngressKeys();
  expect(await keysForSource('service-platform')).toEqual({ kind: 'unavailable' });
});
