import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The layers of functions/ (DESIGN.md): the contract publishes vocabularies and never reaches into
 * domain rules; the store speaks in store terms (errors.ts), never HTTP problems; nothing that
 * ships in a Lambda imports the hosting code in lib/ or the CDK.
 */
const ROOT = path.resolve(__dirname, '../..');

function sourcesBelow(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

/** Every module a file imports, resolved to a project-relative path (packages stay as named). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/g)].map((m) => m[1]);
  return specifiers.map((s) => (s.startsWith('.') ? path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), s)) : s));
}

const rules: { layer: string; forbidden: (target: string) => boolean; why: string }[] = [
  { layer: 'functions/contract', forbidden: (t) => t.startsWith('functions/domain') || t.startsWith('functions/handlers') || t.startsWith('functions/store'), why: 'the contract publishes vocabularies; domain rules use them, not the reverse' },
  { layer: 'functions/store', forbidden: (t) => t.startsWith('functions/http') || t.startsWith('functions/handlers'), why: 'the store reports store conditions; the HTTP boundary maps them' },
  {
    layer: 'functions/domain',
    forbidden: (t) => t.startsWith('functions/http') || t.startsWith('functions/handlers') || (t.startsWith('functions/store') && !t.startsWith('functions/store/ports/')) || t.startsWith('@aws-sdk'),
    why: 'domain rules are pure: they declare the shapes they read, the store fills them through its ports',
  },
  { layer: 'functions/domain', forbidden: (t) => t.startsWith('functions/pages') || t.startsWith('functions/browser'), why: 'the pages present the domain, never the other way round' },
  { layer: 'functions/pages', forbidden: (t) => t.startsWith('functions/handlers') || t.startsWith('functions/store') || t.startsWith('functions/http') || t.startsWith('@aws-sdk'), why: 'pages render what the handlers read; they read nothing themselves' },
  { layer: 'functions', forbidden: (t) => t.startsWith('lib/') || t.startsWith('bin/') || t.startsWith('aws-cdk-lib') || t === 'constructs', why: 'Lambda code never carries hosting code' },
];

describe.each(rules)('$layer', ({ layer, forbidden, why }) => {
  test(`imports nothing it must not (${why})`, () => {
    const offending = sourcesBelow(layer).flatMap((file) => importsOf(file).filter(forbidden).map((target) => `${file} -> ${target}`));
    expect(offending).toEqual([]);
  });
});

test('the domain reaches the store only through the ports\' types, and the ports are types (what they promise) and nothing else', () => {
  const portImports = sourcesBelow('functions/domain').flatMap((file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    return [...text.matchAll(/(?:^|\n)\s*import\s+(type\s+)?[^'"]*?from\s+'([^']*store\/ports\/[^']*)'/g)].map((m) => ({ file, typeOnly: m[1] !== undefined }));
  });
  expect(portImports.length).toBeGreaterThan(0);
  expect(portImports.filter((i) => !i.typeOnly)).toEqual([]);
  const portsImport = sourcesBelow('functions/store/ports').flatMap((file) => importsOf(file).filter((t) => t.startsWith('@aws-sdk') || t.startsWith('node:') || t.startsWith('functions/store/dynamodb') || t.startsWith('functions/store/memory')));
  expect(portsImport).toEqual([]);
});

/**
 * Nothing outside functions/store/ knows a key, an attribute name or a DynamoDB type: the writers
 * reach the table through the ports; only the places that compose them (a Lambda's entry, the
 * loader's, its export for DynamoDB's import) name the DynamoDB implementation.
 */
const COMPOSITION_ROOTS = new Set(['functions/handlers/sequence-events.ts', 'lib/loader/load.ts', 'lib/loader/export.ts', 'bin/load.ts']);
test('no writer but the composition roots reaches the table itself', () => {
  const reaching = (t: string) => t.startsWith('@aws-sdk/client-dynamodb') || t.startsWith('functions/store/layout') || t.startsWith('functions/store/batch-get') || t.startsWith('functions/store/write') || t.startsWith('functions/store/dynamodb');
  const offending = writerSources()
    .filter((file) => !file.startsWith('functions/store/') && !COMPOSITION_ROOTS.has(file))
    .flatMap((file) => importsOf(file).filter(reaching).map((target) => `${file} -> ${target}`));
  expect(offending).toEqual([]);
  // The roots compose: each of them does reach the table (a root that no longer does leaves this list).
  for (const root of COMPOSITION_ROOTS) expect({ root, reaches: importsOf(root).some(reaching) }).toEqual({ root, reaches: true });
});

test('the import scanner sees imports (a layer with none would prove nothing)', () => {
  expect(importsOf('functions/handlers/resolve-object.ts')).toContain('functions/store/environment');
});

/**
 * What a record kind means (its states and statuses, its entries, its events, its transition
 * tables, which field of a view holds its state) is written once, in functions/domain/kinds/
 * (docs/ingress.md#record-kinds). The writers (the receivers, the sequencer, the store, the loader)
 * ask the kind; a name of the kinds' vocabulary in their code is a rule or a guess living outside it.
 */
const WRITERS = [
  'functions/domain/ingress',
  'functions/ledger-writer',
  'functions/store',
  'functions/handlers/ingress-receiver.ts',
  'functions/handlers/sequence-events.ts',
  'lib/loader',
  'bin/load.ts',
];
/**
 * How a load file writes each kind (its schemas) names the vocabulary the file is written in (a
 * kind, its history's entry types), but no rule of it: no lifecycle table, transition or view.
 */
const FILE_FORMATS = 'lib/loader/formats/';
const FILE_VOCABULARY = new Set(['a kind by name', 'an entry type', 'a field only one kind has']);
const KIND_VOCABULARY: { what: string; pattern: RegExp }[] = [
  { what: 'a kind by name', pattern: /'(OBJECT|CREDENTIAL|COMMERCIAL_PROOF|STATUS_LIST)'|\b(OBJECT|CREDENTIAL|COMMERCIAL_PROOF|STATUS_LIST)_KIND\b/ },
  { what: 'an event type', pattern: /svc\.(living-object|credential|commercial-proof)\./ },
  { what: 'an entry type', pattern: /'(STATE_CHANGED|AUTHORITY_OBSERVED|SOURCE_SYNCHRONIZED|PROOF_ISSUED|LIST_PUBLISHED|ISSUED|SUSPENDED|REINSTATED|REVOKED)'/ },
  { what: 'a lifecycle table or rule', pattern: /\b(ALLOWED_EVENTS|CREDENTIAL_EVENTS|PURPOSE_STATE|lifecycleClass|isLifecycleState|\w+TransitionRefusal|reconcileStatusList|statusListReference)\b/ },
  { what: 'a guess at a view\'s state', pattern: /\b(view|content)\??\.(state|status|lastSynchronization|objectType|statusSlots)\b/ },
  { what: 'a field only one kind has', pattern: /\b(lastSynchronization|objectType|statusSlots|statusSince|stateSince)\b/ },
];

const writerSources = (): string[] => WRITERS.flatMap((w) => (w.endsWith('.ts') ? [w] : sourcesBelow(w)));

describe('kind meaning lives in functions/domain/kinds/ only', () => {
  test.each(KIND_VOCABULARY)('no writer names $what', ({ what, pattern }) => {
    const found = writerSources().filter((file) => !(file.startsWith(FILE_FORMATS) && FILE_VOCABULARY.has(what))).flatMap((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  test('the scan reads the kinds themselves as naming all of it (a pattern that matches nothing would prove nothing)', () => {
    const kinds = sourcesBelow('functions/domain/kinds').map((file) => readFileSync(path.join(ROOT, file), 'utf8')).join('\n');
    for (const { what, pattern } of KIND_VOCABULARY) expect({ what, named: pattern.test(kinds) }).toEqual({ what, named: true });
  });
});
