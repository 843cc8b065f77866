import jsonld from 'jsonld';
import { DEMO_CREDENTIALS, DEMO_STATUS_LISTS } from '../../fixtures/demo-credentials';
import { TRUST_CONTEXT_PATH, TRUST_CONTEXT_V1, TRUST_VOCABULARY, UNDEFINED_TERMS_CONTEXT, VC_V2_CONTEXT } from '../../functions/contract/credential-context';
import type { LocalService } from '../../lib/local/service';
import { getJson, startTestService } from '../support/local';

/**
 * Every credential document the service publishes, read by a standard JSON-LD processor (the
 * `jsonld` package) as Data Integrity signers and verifiers read it: in safe mode, where a term no
 * context defines, or a relative type, is an error instead of a silently dropped statement. The
 * document loader serves the W3C contexts from @digitalbazaar/credentials-context (a copy
 * maintained apart from this service) and the service's own context from its bundled copy; any
 * other URL fails, so nothing is fetched from the network. Each document's canonical form
 * (RDFC-1.0, formerly URDNA2015) must hold every claim the JSON shows.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { contexts: W3C_CONTEXTS } = require('@digitalbazaar/credentials-context') as { contexts: Map<string, unknown> };

let service: LocalService;
beforeAll(async () => {
  service = await startTestService();
}, 120_000);
afterAll(async () => {
  await service?.close();
});

const loaded: string[] = [];
const documentLoader = async (url: string) => {
  loaded.push(url);
  if (W3C_CONTEXTS.has(url)) return { contextUrl: null, documentUrl: url, document: W3C_CONTEXTS.get(url) };
  if (url === `${service.url}${TRUST_CONTEXT_PATH}`) return { contextUrl: null, documentUrl: url, document: TRUST_CONTEXT_V1 };
  throw new Error(`the test's document loader has no copy of ${url} (and fetches nothing)`);
};
const options = { safe: true, documentLoader } as unknown as jsonld.Options.Expand;

interface Quad {
  subject: string;
  predicate: string;
  object: { iri: string } | { literal: string; datatype: string | null };
}

/** One N-Quads line, as RDFC-1.0 writes them (IRIs, blank nodes, literals with a datatype or none). */
function parseQuad(line: string): Quad {
  const match = /^(<[^>]*>|_:\S+) <([^>]*)> (?:<([^>]*)>|(_:\S+)|"((?:[^"\\]|\\.)*)"(?:\^\^<([^>]*)>)?) \.$/.exec(line);
  if (!match) throw new Error(`not an N-Quad: ${line}`);
  const [, subject, predicate, iri, blank, literal, datatype] = match;
  return { subject, predicate, object: literal === undefined ? { iri: iri ?? blank } : { literal: JSON.parse(`"${literal}"`) as string, datatype: datatype ?? null } };
}

async function canonicalQuads(document: object): Promise<Quad[]> {
  const nquads = (await jsonld.canonize(document, { algorithm: 'RDFC-1.0', format: 'application/n-quads', ...options } as unknown as jsonld.Options.Normalize)) as string;
  return nquads
    .trim()
    .split('\n')
    .map(parseQuad);
}

const termOf = (iri: string) => iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1);

/**
 * Every claim the JSON shows that the canonical statements lack: each member (name and scalar
 * value) at any depth must be a statement whose predicate is that term and whose object is that
 * value (a literal of that lexical form, or that IRI); `type` values must be rdf:type statements;
 * `id` values must name a node. `logged` is checked apart (a JSON literal).
 */
function claimsMissing(value: unknown, quads: Quad[], where = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => claimsMissing(item, quads, where));
  if (value === null || typeof value !== 'object') return [];
  const missing: string[] = [];
  for (const [name, member] of Object.entries(value)) {
    if (name === '@context' || name === 'logged') continue;
    const at = `${where}/${name}`;
    for (const item of Array.isArray(member) ? member : [member]) {
      if (item !== null && typeof item === 'object') {
        missing.push(...claimsMissing(item, quads, at));
        continue;
      }
      const shown = String(item);
      const held =
        name === 'id'
          ? quads.some((q) => q.subject === `<${shown}>`)
          : name === 'type'
            ? quads.some((q) => q.predicate === 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type' && 'iri' in q.object && termOf(q.object.iri) === shown)
            : quads.some((q) => termOf(q.predicate) === name && ('iri' in q.object ? q.object.iri === shown : q.object.literal === shown));
      if (!held) missing.push(`${at} = ${shown}`);
    }
  }
  return missing;
}

/** Every credential document of the demo: each credential's VC projection, each status list now and as it stood before its latest change. */
async function demoDocuments(): Promise<Array<[string, Record<string, unknown>]>> {
  const paths = [
    ...Object.values(DEMO_CREDENTIALS).map((id) => `/v1/portable-credentials/${id}/vc.json`),
    ...Object.values(DEMO_STATUS_LISTS).map((listId) => `/v1/status-lists/${listId}`),
  ];
  const out: Array<[string, Record<string, unknown>]> = [];
  for (const path of paths) {
    const res = await getJson(`${service.url}${path}`);
    expect([path, res.status]).toEqual([path, 200]);
    out.push([path, res.body]);
    if (path.startsWith('/v1/status-lists/')) {
      // The version before the newest: the list as it stood a second before the newest was published.
      const before = new Date(Date.parse(res.body.validFrom) - 1000).toISOString();
      const earlier = await getJson(`${service.url}${path}?timestamp=${before}`);
      expect([path, earlier.status]).toEqual([path, 200]);
      out.push([`${path}?timestamp=${before}`, earlier.body]);
    }
  }
  return out;
}

describe('JSON-LD: what a standard processor makes of the credential documents', () => {
  test('every demo VC and status list credential expands in safe mode with the contexts it names, fetching nothing', async () => {
    const documents = await demoDocuments();
    expect(documents).toHaveLength(Object.keys(DEMO_CREDENTIALS).length + 4);
    const refused: string[] = [];
    for (const [path, document] of documents) {
      try {
        const expanded = await jsonld.expand(document, options);
        expect(expanded).toHaveLength(1);
      } catch (error) {
        refused.push(`${path}: ${(error as Error).message} ${JSON.stringify((error as { details?: unknown }).details ?? '').slice(0, 300)}`);
      }
    }
    expect(refused).toEqual([]);
    expect([...new Set(loaded)].sort()).toEqual([`${service.url}${TRUST_CONTEXT_PATH}`, UNDEFINED_TERMS_CONTEXT, VC_V2_CONTEXT].sort());
  }, 60_000);

  test("the canonical form (RDFC-1.0) of every document holds every claim it shows, `logged` as the exact JSON the ledger logged", async () => {
    const problems: string[] = [];
    for (const [path, document] of await demoDocuments()) {
      const quads = await canonicalQuads(document);
      problems.push(...claimsMissing(document, quads).map((claim) => `${path}: ${claim}`));
      if ('logged' in document) {
        const literal = quads.find((q) => q.predicate === `${TRUST_VOCABULARY}logged`)?.object;
        expect(literal).toMatchObject({ datatype: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON' });
        expect(JSON.parse((literal as { literal: string }).literal)).toEqual(document.logged);
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);

  test('the claims of the membership credentials are statements, not dropped terms', async () => {
    const { body } = await getJson(`${service.url}/v1/portable-credentials/${DEMO_CREDENTIALS.active}/vc.json`);
    const quads = await canonicalQuads(body);
    const undefinedTerm = 'https://www.w3.org/ns/credentials/undefined-term#';
    expect(quads.filter((q) => q.predicate.startsWith(undefinedTerm)).map((q) => [termOf(q.predicate), (q.object as { literal: string }).literal])).toEqual(
      expect.arrayContaining([
        ['membershipLevel', 'GOLD'],
        ['memberSince', '2024'],
      ]),
    );
    const types = quads.filter((q) => q.predicate === 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').map((q) => (q.object as { iri: string }).iri);
    expect(types).toEqual(expect.arrayContaining([`${undefinedTerm}MembershipCredential`, `${undefinedTerm}Member`]));
  });

  test('with the VC 2.0 context alone, safe mode refuses them (the check has teeth)', async () => {
    for (const path of [`/v1/portable-credentials/${DEMO_CREDENTIALS.active}/vc.json`, `/v1/status-lists/${DEMO_STATUS_LISTS.revocation}`]) {
      const { body } = await getJson(`${service.url}${path}`);
      await expect(jsonld.expand({ ...body, '@context': [VC_V2_CONTEXT] }, options)).rejects.toThrow(/Safe mode validation error/);
    }
  });
});

describe("the service's own context", () => {
  test('is served at its stable path as the bundled copy, with an ETag', async () => {
    const res = await fetch(`${service.url}${TRUST_CONTEXT_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/(ld\+)?json/);
    expect(res.headers.get('etag')).toBeTruthy();
    expect(await res.json()).toEqual(TRUST_CONTEXT_V1);
  });

  test('version 1 never changes: a change is a new version at a new path', () => {
    expect(TRUST_CONTEXT_PATH).toBe('/v1/contexts/trust/v1.json');
    expect(JSON.stringify(TRUST_CONTEXT_V1)).toBe('{"@context":{"@version":1.1,"@protected":true,"logged":{"@id":"urn:svc:vocabulary:logged","@type":"@json"}}}');
  });
});
