import { buildImportDocument, PLACEHOLDER_TARGETS } from '../../lib/contract/import-document';
import { buildOpenApi } from '../../lib/contract/openapi';
import { NEUTRAL_ORIGINS } from '../../lib/contract/origins';
import { buildSite } from '../../lib/publish/site';
import { canonicalSources, type PublishSources } from '../../lib/publish/sources';

/**
 * The published contract says what is built. Every document the service publishes (openapi.json,
 * asyncapi.json, catalogue.json, contracts.json and every other developer document and static
 * file of the site) and the API Gateway import document the stack deploys carry no wording that
 * calls a part of the service unbuilt: a part described as missing is either built, and the
 * description changes, or it is not published as a route.
 */
const UNBUILT = /\b(not\s+(yet\s+)?built|not\s+built\s+yet|yet\s+to\s+be\s+built|to\s+be\s+built\s+later)\b/i;

/** Each published text with the place of every match: document name and the words around it. */
function unbuiltWording(documents: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [name, text] of documents) {
    const global = new RegExp(UNBUILT.source, 'gi');
    for (const m of text.matchAll(global)) found.push(`${name}: ...${text.slice(Math.max(0, m.index! - 60), m.index! + m[0].length + 20)}...`);
  }
  return found;
}

function published(sources: PublishSources): Map<string, string> {
  const documents = buildSite(sources);
  documents.set('contract/openapi.json (npm run contract)', JSON.stringify(buildOpenApi(NEUTRAL_ORIGINS)));
  documents.set('contract/apigateway-import.json (the stack\'s API)', JSON.stringify(buildImportDocument(PLACEHOLDER_TARGETS)));
  return documents;
}

test('no published document, nor the API Gateway import document, calls any part of the service not yet built', () => {
  const documents = published(canonicalSources());
  // Every document of the site is read, the ones the issue names among them.
  for (const key of ['developers/openapi.json', 'developers/asyncapi.json', 'developers/catalogue.json', 'developers/contracts.json']) expect(documents.has(key)).toBe(true);
  expect(documents.size).toBeGreaterThan(15);
  expect(unbuiltWording(documents)).toEqual([]);
});

test('the scan is real: an operation described as not yet built is found in what is published of it', () => {
  const sources = canonicalSources();
  const [receiver] = sources.operations.filter((op) => op.path === '/v1/lifecycle/events');
  const described = { ...sources, operations: sources.operations.map((op) => (op === receiver ? { ...op, summary: `${op.summary} (the sequencer is not yet built)` } : op)) };
  const found = unbuiltWording(published(described));
  expect(found.length).toBeGreaterThan(0);
  expect(found.some((f) => f.startsWith('developers/catalogue.json'))).toBe(true);
  expect(unbuiltWording(new Map([['x', 'its sequencer is Not Yet\nBuilt']]))).toHaveLength(1);
});
