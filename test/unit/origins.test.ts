import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { operations } from '../../functions/contract/operations';
import { buildOpenApi } from '../../lib/contract/openapi';
import { localOrigins, NEUTRAL_ORIGINS, originsOfPath, type Origins } from '../../lib/contract/origins';
import { buildOriginDocuments, buildSite, keyOf, ORIGIN_DOCUMENTS, publishSite } from '../../lib/publish/site';
import { canonicalSources } from '../../lib/publish/sources';
import { API_REFERENCE_ASSETS } from '../../functions/contract/site-paths';

const sources = canonicalSources();
const A: Origins = { verificationOrigin: 'https://verify.example.org', generalOrigin: 'https://developers.example.org' };
const B: Origins = { verificationOrigin: 'https://trust.example.net/live', generalOrigin: 'https://trust.example.net/live' };
const siteA = buildSite(sources, A);
const siteB = buildSite(sources, B);
const json = (site: Map<string, string>, key: string) => JSON.parse(site.get(key)!);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the two origins in the OpenAPI contract', () => {
  const contract = buildOpenApi(A);

  test('servers declares the verification origin and the general origin, each saying what belongs to it', () => {
    expect(contract.servers.map((s: any) => s.url)).toEqual([A.verificationOrigin, A.generalOrigin]);
    expect(contract.servers[0].description).toMatch(/^Verification origin: .*\/v1\/.*\/verify.*\/trust-receipt/);
    expect(contract.servers[1].description).toMatch(/^General origin: .*\/developers\//);
    for (const s of contract.servers) expect(s['x-internal']).toBe(false);
  });

  test('every path names the origin(s) it belongs to, so a generated client routes each operation', () => {
    for (const op of operations) {
      const urls = contract.paths[op.path].servers.map((s: any) => s.url);
      const expected = originsOfPath(op.path).map((o) => (o === 'verification' ? A.verificationOrigin : A.generalOrigin));
      expect(urls).toEqual(expected);
    }
    expect(contract.paths['/health'].servers.map((s: any) => s.url)).toEqual([A.verificationOrigin, A.generalOrigin]);
    expect(contract.paths['/v1/objects/{reference}'].servers.map((s: any) => s.url)).toEqual([A.verificationOrigin]);
    expect(contract.paths['/trust-receipt/{reference}'].servers.map((s: any) => s.url)).toEqual([A.verificationOrigin]);
    expect(contract.paths['/developers/sandbox/test-clock'].servers.map((s: any) => s.url)).toEqual([A.generalOrigin]);
    expect(contract.paths['/studio'].servers.map((s: any) => s.url)).toEqual([A.generalOrigin]);
  });

  test('locally both are http://127.0.0.1:PORT (PORT, else 3000), never a template', () => {
    expect(localOrigins(4123)).toEqual({ verificationOrigin: 'http://127.0.0.1:4123', generalOrigin: 'http://127.0.0.1:4123' });
    const previous = process.env.PORT;
    try {
      delete process.env.PORT;
      expect(localOrigins().generalOrigin).toBe('http://127.0.0.1:3000');
      process.env.PORT = '3999';
      expect(buildOpenApi().servers[0].url).toBe('http://127.0.0.1:3999');
    } finally {
      if (previous === undefined) delete process.env.PORT;
      else process.env.PORT = previous;
    }
    expect(JSON.stringify(buildOpenApi())).not.toContain('{base_url}');
  });
});

describe('published documents name the URL callers use', () => {
  test('catalogue.json: baseUrl is the general origin, origins names both, each endpoint its own origin', () => {
    const catalogue = json(siteA, 'developers/catalogue.json');
    expect(catalogue.baseUrl).toBe(A.generalOrigin);
    expect(catalogue.origins).toEqual({ verification: A.verificationOrigin, general: A.generalOrigin });
    for (const e of catalogue.endpoints) {
      expect(e.baseUrl).toBe(originsOfPath(e.path)[0] === 'verification' ? A.verificationOrigin : A.generalOrigin);
    }
  });

  test('no published document carries a {base_url} template or another host\'s URL', () => {
    // The vendored Swagger UI bundle is a third party's program, not a document we author; it mentions
    // 127.0.0.1 in its own code. Every other file is ours and is checked.
    const vendored = API_REFERENCE_ASSETS.script.slice(1);
    expect(siteA.has(vendored)).toBe(true);
    for (const [key, bytes] of [...siteA].filter(([key]) => key !== vendored)) {
      expect(`${key}: ${bytes.includes('{base_url}')}`).toBe(`${key}: false`);
      expect(`${key}: ${bytes.includes('127.0.0.1')}`).toBe(`${key}: false`);
    }
  });

  test('only the origin documents change with the origins (the stack deploys exactly those for its own URL)', () => {
    const changed = [...siteA.keys()].filter((key) => siteA.get(key) !== siteB.get(key)).sort();
    expect(changed).toEqual(ORIGIN_DOCUMENTS.map(keyOf).sort());
    expect([...buildOriginDocuments(sources, A)]).toEqual(ORIGIN_DOCUMENTS.map((p) => [keyOf(p), siteA.get(keyOf(p))]));
  });

  test('digests in contracts.json are of the origin-neutral form, the same for every host', () => {
    const neutral = buildOriginDocuments(sources, NEUTRAL_ORIGINS);
    const contracts = json(siteA, 'developers/contracts.json');
    const openapi = contracts.contracts.find((c: any) => c.path === '/developers/openapi.json');
    expect(openapi.sha256).toBe(sha256(neutral.get('developers/openapi.json')!));
    expect(openapi.sha256).not.toBe(sha256(siteA.get('developers/openapi.json')!));
    // Replacing the origins by their placeholders gives back the digested bytes.
    const restored = siteA.get('developers/openapi.json')!.split(A.verificationOrigin).join(NEUTRAL_ORIGINS.verificationOrigin).split(A.generalOrigin).join(NEUTRAL_ORIGINS.generalOrigin);
    expect(sha256(restored)).toBe(openapi.sha256);
  });

  test('publishSite writes the site for a host\'s own URL (what the local host calls at start-up)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'publish-'));
    try {
      const keys = await publishSite(dir, localOrigins(4567), sources);
      expect(keys.sort()).toEqual([...siteA.keys()].sort());
      const contract = JSON.parse(await readFile(path.join(dir, 'developers/openapi.json'), 'utf8'));
      expect(contract.servers.map((s: any) => s.url)).toEqual(['http://127.0.0.1:4567', 'http://127.0.0.1:4567']);
      expect(contract.servers[0].description).toContain('Environment: local');
      const catalogue = JSON.parse(await readFile(path.join(dir, 'developers/catalogue.json'), 'utf8'));
      expect(catalogue.baseUrl).toBe('http://127.0.0.1:4567');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
