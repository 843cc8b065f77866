import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { z } from 'zod';
import { operations } from '../../functions/contract/operations';
import * as generated from '../../functions/generated/params';
import { GENERATED_PARAMS_FILE, generateParamValidators } from '../../lib/contract/generate-params';
import { GENERATED_ROUTES_FILE, generateRoutes } from '../../lib/contract/generate-routes';
import { GENERATED_ASSETS_FILE, generateAssets } from '../../lib/contract/generate-assets';
import { GENERATED_BODIES_FILE, generateBodyPlans } from '../../lib/contract/generate-bodies';
import { GENERATED_CACHING_FILE, generateCaching } from '../../lib/contract/generate-caching';
import { assets } from '../../functions/generated/assets';
import { buildAssetCatalogue } from '../../lib/publish/assets';
import { canonicalSources } from '../../lib/publish/sources';
import { GET_PATHS, routes } from '../../functions/generated/routes';
import { generateMessages } from '../../lib/contract/generate-messages';
import { GENERATED_RECEIPT_SCRIPT_FILE, generateReceiptScript } from '../../lib/contract/generate-receipt-script';
import { GENERATED_PAGE_STYLE_FILE, generatePageStyleHash } from '../../lib/contract/generate-page-style';
import { GENERATED_CLIENT_TYPES_FILE, readOnlyContract } from '../../lib/contract/generate-client-types';
import { buildOpenApi } from '../../lib/contract/openapi';
import { Reference } from '../../functions/contract/schemas/common';

const ROOT = path.resolve(__dirname, '../..');
const validators = generated as unknown as Record<string, Record<string, generated.ParamValidator<unknown>>>;

const parameters = operations.flatMap((op) =>
  Object.entries({ ...op.pathParams, ...op.queryParams }).map(([name, schema]) => [`${op.operationId} ${name}`, op.operationId, name, schema as z.ZodType] as const),
);

test('the committed validators are what the generator makes of the contract table (npm run generate)', () => {
  expect(readFileSync(path.join(ROOT, GENERATED_PARAMS_FILE), 'utf8')).toBe(generateParamValidators(operations));
});

test('the committed route list is what the generator makes of the contract table (npm run generate)', () => {
  expect(readFileSync(path.join(ROOT, GENERATED_ROUTES_FILE), 'utf8')).toBe(generateRoutes(operations));
  expect(routes().map((r) => `${r.method} ${r.path} ${r.operationId} ${r.liveState}`)).toEqual(operations.map((op) => `${op.method} ${op.path} ${op.operationId} ${op.liveState}`));
  expect(GET_PATHS).toEqual(operations.filter((op) => op.method === 'GET').map((op) => op.path));
});

test("the committed route caching is what the generator makes of the contract table's caching and varies columns (npm run generate)", () => {
  expect(readFileSync(path.join(ROOT, GENERATED_CACHING_FILE), 'utf8')).toBe(generateCaching(operations));
});

test('the committed request-body checks are what the generator makes of the contract table (npm run generate; held to zod by body-check.test.ts)', () => {
  expect(readFileSync(path.join(ROOT, GENERATED_BODIES_FILE), 'utf8')).toBe(generateBodyPlans(operations));
});

test('the committed asset catalogue is what the generator makes of the sources, and the published assets.json lists the same entries', () => {
  expect(readFileSync(path.join(ROOT, GENERATED_ASSETS_FILE), 'utf8')).toBe(generateAssets(operations));
  expect(assets()).toEqual(buildAssetCatalogue(canonicalSources()).assets);
});

test('the committed page messages are what messageformat makes of the catalogues (npm run generate)', () => {
  for (const [file, source] of generateMessages()) expect([file, readFileSync(path.join(ROOT, file), 'utf8')]).toEqual([file, source]);
});

test("the committed receipt script is the browser bundle of functions/browser/receipt-check.ts, with its hash (npm run generate)", () => {
  expect(readFileSync(path.join(ROOT, GENERATED_RECEIPT_SCRIPT_FILE), 'utf8')).toBe(generateReceiptScript());
});

test("the committed style hash is the SHA-256 of the pages' style block (npm run generate)", () => {
  expect(readFileSync(path.join(ROOT, GENERATED_PAGE_STYLE_FILE), 'utf8')).toBe(generatePageStyleHash());
});

test("the committed client types of the verifier package are what openapi-typescript makes of the contract's read operations (npm run generate)", () => {
  // In a Node.js process of its own: openapi-typescript loads ESM-only modules, which jest's runtime does not.
  const script = "require('./lib/contract/generate-client-types.ts').generateClientTypes().then((types) => process.stdout.write(types))";
  const generatedNow = execFileSync(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), '--eval', script], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  expect(readFileSync(path.join(ROOT, GENERATED_CLIENT_TYPES_FILE), 'utf8')).toBe(generatedNow);
  // Every GET route of the contract, and nothing else, is typed.
  const contract = buildOpenApi() as { paths: Record<string, Record<string, unknown>> };
  const reads = Object.keys(contract.paths).filter((route) => contract.paths[route].get);
  expect(Object.keys((readOnlyContract() as typeof contract).paths)).toEqual(reads);
  expect(reads).toEqual(expect.arrayContaining(['/v1/objects/{reference}', '/v1/commercial-proofs/{reference}', '/v1/credentials/verify/{claimId}', '/v1/status-lists/{listId}', '/v1/ledger']));
  expect(Object.values((readOnlyContract() as typeof contract).paths).every((item) => Object.keys(item).every((key) => key === 'get' || key === 'parameters'))).toBe(true);
});

test('every parameter of the table has a generated validator', () => {
  expect(parameters.length).toBeGreaterThan(0);
  for (const [, operationId, name] of parameters) expect(typeof validators[`${operationId}Params`]?.[name]?.check).toBe('function');
});

/** Strings near each parameter's edges: valid values, values one step outside, and noise. */
const ALPHABET = 'aZ09._:~-+ TZz/%e\u00e9';
const candidates = fc.oneof(
  fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 200 }),
  fc.string({ maxLength: 40 }),
  fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.tuple(fc.date({ noInvalidDate: true, min: new Date('1900-01-01'), max: new Date('2999-01-01') }), fc.constantFrom('Z', '+01:00', '-23:59', '+24:00', '', 'z', '+0100'))
    .map(([d, zone]) => d.toISOString().slice(0, 19) + zone),
  fc.integer({ min: -5, max: 400 }).map(String),
  fc.constantFrom('', ' 5 ', '1e2', '0x10', '2.5', 'Infinity', 'NaN', '-0', '9007199254740993', '2024-02-29T00:00:00Z', '2023-02-29T00:00:00Z', 'a'.repeat(181), 'ab', 'abc'),
);

test('the standalone reference check (parseReference) accepts and refuses exactly what the Reference schema does', () => {
  expect(generated.referenceParam.description).toBe(Reference.description);
  fc.assert(
    fc.property(candidates, (raw) => {
      const expected = Reference.safeParse(raw);
      expect(generated.referenceParam.check(raw).why === undefined).toBe(expected.success);
    }),
    { numRuns: 400 },
  );
});

describe.each(parameters)('%s', (_label, operationId, name, schema) => {
  const validator = validators[`${operationId}Params`][name];

  it('carries the contract description', () => {
    expect(validator.description).toBe(schema.description ?? '');
  });

  it('accepts and refuses exactly what the zod schema does, with the same value', () => {
    fc.assert(
      fc.property(candidates, (raw) => {
        const expected = schema.safeParse(raw);
        const actual = validator.check(raw);
        expect(actual.why === undefined).toBe(expected.success);
        if (expected.success) expect((actual as { value: unknown }).value).toEqual(expected.data);
      }),
      { numRuns: 400 },
    );
  });
});
