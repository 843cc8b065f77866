import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { operations } from '../../functions/contract/operations';
import { APIGATEWAY_RULES, lintImportDocument } from '../../lib/contract/apigateway-rules';
import { buildImportDocument, gatewayPath, PLACEHOLDER_TARGETS } from '../../lib/contract/import-document';
import { buildOpenApi } from '../../lib/contract/openapi';

type Json = Record<string, any>;

const importDoc = buildImportDocument(PLACEHOLDER_TARGETS);
const ruleIds = (findings: { rule: string }[]) => [...new Set(findings.map((f) => f.rule))].sort();

/** The smallest document API Gateway would import: one GET with a mock integration, HEAD and OPTIONS declared. */
function minimal(): Json {
  const mock = (status: string) => ({ type: 'mock', requestTemplates: { 'application/json': `{"statusCode": ${status}}` }, responses: { default: { statusCode: status } } });
  return {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/things/{id}': {
        get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'ok' } }, 'x-amazon-apigateway-integration': mock('200') },
        head: { responses: { '200': { description: 'ok' } }, 'x-amazon-apigateway-integration': mock('200') },
        options: { responses: { '204': { description: 'ok' } }, 'x-amazon-apigateway-integration': mock('204') },
      },
    },
  };
}

/** Puts a model in, used by a body validated by a request validator (the only place a model is allowed). */
function withModel(schema: Json, name = 'Thing'): Json {
  const doc = minimal();
  doc.components = { schemas: { [name]: schema } };
  doc['x-amazon-apigateway-request-validators'] = { body: { validateRequestBody: true, validateRequestParameters: false } };
  doc.paths['/things/{id}'].post = {
    requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
    responses: { '200': { description: 'ok' } },
    'x-amazon-apigateway-request-validator': 'body',
    'x-amazon-apigateway-integration': { type: 'mock', responses: { default: { statusCode: '200' } } },
  };
  return doc;
}

describe('the generated import document', () => {
  test('meets every documented API Gateway restriction', () => {
    expect(lintImportDocument(importDoc)).toEqual([]);
  });

  test('carries no models (no request validator reads them; proxy responses are never validated)', () => {
    expect(importDoc.components).toBeUndefined();
    expect(JSON.stringify(importDoc.paths)).not.toContain('"content"');
    expect(JSON.stringify(importDoc.paths)).not.toContain('$ref');
  });

  test('the full schemas stay in the public OpenAPI 3.1 contract, which API Gateway could not import as it is', () => {
    const contract = buildOpenApi();
    expect(Object.keys(contract.components.schemas).length).toBeGreaterThan(20);
    // The linter is not vacuous: the public contract breaks several of the documented restrictions.
    const broken = ruleIds(lintImportDocument(contract));
    expect(broken).toEqual(expect.arrayContaining(['openapi-version', 'integration-present', 'parameter-attributes', 'response-refs', 'draft-4-models']));
  });

  test('every operation of the table is a method of its path, HEAD beside every GET, OPTIONS and the catch-all on every path', () => {
    for (const op of operations) {
      const item = importDoc.paths[gatewayPath(op)];
      expect(item[op.method.toLowerCase()]).toBeDefined();
      if (op.method === 'GET') expect(item.head).toBeDefined();
      expect(item.options['x-amazon-apigateway-integration'].type).toBe('mock');
      expect(item['x-amazon-apigateway-any-method']).toBeDefined();
    }
    const operationIds = Object.values(importDoc.paths).flatMap((item: any) => Object.values(item).map((m: any) => m.operationId).filter(Boolean));
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  test('parameters carry only name, in, required and the type (API Gateway ignores everything else)', () => {
    for (const item of Object.values(importDoc.paths) as Json[]) {
      for (const method of Object.values(item) as Json[]) {
        for (const p of method.parameters ?? []) {
          expect(Object.keys(p).sort()).toEqual(expect.arrayContaining(['in', 'name', 'required', 'schema']));
          expect(Object.keys(p.schema)).toEqual(['type']);
        }
      }
    }
  });
});

describe('a second implementation: Redocly reads the import document as OpenAPI 3.0', () => {
  const ROOT = path.resolve(__dirname, '../..');
  const lint = async (doc: Json) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'import-doc-'));
    try {
      const file = path.join(dir, 'import.json');
      await writeFile(file, JSON.stringify(doc));
      const { stdout } = await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--extends', 'minimal', '--format', 'json'], {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      }).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
      return JSON.parse(stdout) as { totals: { errors: number }; problems: { ruleId: string; severity: string; location?: { pointer?: string }[] }[] };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  test('no error, and only the warnings this document accepts', async () => {
    const report = await lint(importDoc);
    expect(report.totals.errors).toBe(0);
    // No servers (API Gateway would take a server URL's path as the base path), no operationId on the
    // OPTIONS and catch-all mocks, no security requirement (public API; API Gateway ignores them).
    // A greedy path ({tilePath+}, the tile log) names its parameter without the +, as API Gateway requires; Redocly reads the + as part of the name.
    const greedy = (p: { ruleId: string; location?: { pointer?: string }[] }) =>
      p.ruleId === 'path-parameters-defined' && (p.location ?? []).every((l) => /\+%7D|\+\}/.test(decodeURIComponent(l.pointer ?? '')));
    expect(
      report.problems.filter((p) => !greedy(p)).map((p) => p.ruleId).filter((r) => !['no-empty-servers', 'operation-operationId', 'security-defined'].includes(r)),
    ).toEqual([]);
    expect(report.problems.filter(greedy).length).toBeGreaterThan(0);
  }, 30_000);

  test('the check is real: an undeclared path parameter and a method without responses are reported', async () => {
    const broken = JSON.parse(JSON.stringify(importDoc));
    delete broken.paths['/v1/objects/{reference}'].options.parameters;
    delete broken.paths['/health'].get.responses;
    const report = await lint(broken);
    expect(report.totals.errors).toBeGreaterThan(0);
    expect(report.problems.map((p) => p.ruleId)).toEqual(expect.arrayContaining(['path-parameters-defined']));
  }, 30_000);
});

describe('the linter (each rule against a small bad document)', () => {
  test('a minimal valid document passes every rule', () => {
    expect(lintImportDocument(minimal())).toEqual([]);
    expect(lintImportDocument(withModel({ type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'] }))).toEqual([]);
  });

  const cases: [string, (doc: Json) => Json][] = [
    ['openapi-version', (d) => ({ ...d, openapi: '3.1.0' })],
    ['path-segments', (d) => ({ ...d, paths: { '/things{id}': d.paths['/things/{id}'] } })],
    ['path-segments', (d) => ({ ...d, paths: { '/things/{id}.json': d.paths['/things/{id}'] } })],
    ['path-segments', (d) => ({ ...d, paths: { '/things/a_b': d.paths['/things/{id}'] } })],
    ['reserved-paths', (d) => ({ ...d, paths: { '/ping': d.paths['/things/{id}'] } })],
    ['parameter-attributes', (d) => (d.paths['/things/{id}'].get.parameters[0].schema.pattern = '^a', d)],
    ['parameter-attributes', (d) => (d.paths['/things/{id}'].get.parameters[0].style = 'simple', d)],
    ['security-schemes', (d) => ({ ...d, components: { securitySchemes: { oauth: { type: 'oauth2', flows: {} } } } })],
    ['root-security', (d) => ({ ...d, security: [{ key: [] }] })],
    ['deprecated', (d) => (d.paths['/things/{id}'].get.deprecated = true, d)],
    ['no-one-of', (d) => (d.paths['/things/{id}'].get.parameters[0].schema = { oneOf: [{ type: 'string' }] }, d)],
    ['no-discriminator', (d) => (d.paths['/things/{id}'].get.parameters[0].schema = { type: 'string', discriminator: { propertyName: 'a' } }, d)],
    ['no-example', (d) => (d.paths['/things/{id}'].get.parameters[0].schema = { type: 'string', example: 'x' }, d)],
    ['no-example-outside-schemas', (d) => (d.paths['/things/{id}'].get.parameters[0].example = 'x', d)],
    ['no-exclusive-minimum', (d) => (d.paths['/things/{id}'].get.parameters[0].schema = { type: 'integer', exclusiveMinimum: true, minimum: 0 }, d)],
    ['no-read-only', (d) => (d.paths['/things/{id}'].get.parameters[0].schema = { type: 'string', readOnly: true }, d)],
    ['response-refs', (d) => (d.paths['/things/{id}'].get.responses['500'] = { $ref: '#/components/responses/Unexpected' }, d)],
    ['response-schema-object', (d) => (d.paths['/things/{id}'].get.responses['200'].content = { 'application/json': { schema: { type: 'string' } } }, d)],
    ['integration-present', (d) => (delete d.paths['/things/{id}'].get['x-amazon-apigateway-integration'], d)],
    ['integration-shape', (d) => (d.paths['/things/{id}'].get['x-amazon-apigateway-integration'] = { type: 'lambda', uri: 'x' }, d)],
    [
      'integration-shape',
      (d) => (d.paths['/things/{id}'].get['x-amazon-apigateway-integration'] = { type: 'aws_proxy', httpMethod: 'GET', uri: 'arn:aws:apigateway:r:lambda:path/2015-03-31/functions/f/invocations' }, d),
    ],
    ['integration-shape', (d) => (d.paths['/things/{id}'].get['x-amazon-apigateway-integration'].timeoutInMillis = 30_000, d)],
    ['mapping-sources', (d) => (d.paths['/things/{id}'].get['x-amazon-apigateway-integration'].requestParameters = { 'integration.request.header.X': 'method.request.header.Undeclared' }, d)],
    ['mapping-sources', (d) => (d.paths['/things/{id}'].get['x-amazon-apigateway-integration'].responses.default.responseParameters = { 'method.response.header.A': 'unquoted literal' }, d)],
    [
      'method-responses-declared',
      (d) => (d.paths['/things/{id}'].get['x-amazon-apigateway-integration'].responses.default.responseParameters = { 'method.response.header.ETag': "'x'" }, d),
    ],
    ['method-responses-declared', (d) => (d.paths['/things/{id}'].get['x-amazon-apigateway-integration'].responses.default.statusCode = '201', d)],
    ['mapping-template-size', (d) => (d.paths['/things/{id}'].get['x-amazon-apigateway-integration'].requestTemplates['application/json'] = 'x'.repeat(301 * 1024), d)],
    ['gateway-responses', (d) => ({ ...d, 'x-amazon-apigateway-gateway-responses': { NOT_A_TYPE: { statusCode: 400 } } })],
    ['gateway-responses', (d) => ({ ...d, 'x-amazon-apigateway-gateway-responses': { REQUEST_TOO_LARGE: { statusCode: 413 } } })],
    ['gateway-responses', (d) => ({ ...d, 'x-amazon-apigateway-gateway-responses': { DEFAULT_4XX: { responseParameters: { 'gatewayresponse.header.x-correlation-id': 'context.requestId' } } } })],
    ['any-method-does-not-shadow', (d) => ((d.paths['/things/{id}']['x-amazon-apigateway-any-method'] = d.paths['/things/{id}'].options), delete d.paths['/things/{id}'].head, d)],
    ['any-method-does-not-shadow', (d) => ((d.paths['/things/{id}']['x-amazon-apigateway-any-method'] = d.paths['/things/{id}'].head), delete d.paths['/things/{id}'].options, d)],
    ['no-response-models-on-proxy', (d) => {
      d.paths['/things/{id}'].get['x-amazon-apigateway-integration'] = { type: 'aws_proxy', httpMethod: 'POST', uri: 'arn:aws:apigateway:r:lambda:path/2015-03-31/functions/f/invocations' };
      d.paths['/things/{id}'].get.responses['200'].content = { 'application/json': { schema: { type: 'object' } } };
      return d;
    }],
  ];

  test.each(cases.map(([rule, mutate], i) => [`${rule} #${i}`, rule, mutate] as const))('%s', (_name, rule, mutate) => {
    const findings = lintImportDocument(mutate(minimal()));
    expect(findings.map((f) => f.rule)).toContain(rule);
    for (const f of findings) expect(f.at).toMatch(/^#\//);
  });

  const modelCases: [string, Json][] = [
    ['model-names', { type: 'object' }],
    ['no-additional-properties', { type: 'object', additionalProperties: false }],
    ['no-any-of', { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }],
    ['draft-4-models', { type: 'object', properties: { a: { const: 'x' } } }],
    ['draft-4-models', { type: 'object', properties: { a: { type: ['string', 'null'] } } }],
    ['draft-4-models', { type: 'object', properties: { a: { type: 'number', exclusiveMaximum: 3 } } }],
    ['number-formats', { type: 'object', properties: { a: { type: 'number', format: 'int32' } } }],
    ['number-formats', { type: 'object', properties: { a: { type: 'number', format: 'decimal' } } }],
  ];

  test.each(modelCases.map(([rule, schema], i) => [`${rule} #${i}`, rule, schema] as const))('%s (in a model)', (_name, rule, schema) => {
    const findings = lintImportDocument(withModel(schema, rule === 'model-names' ? 'Bad_Name' : 'Thing'));
    expect(findings.map((f) => f.rule)).toContain(rule);
  });

  test('a property named like a keyword is a name, not a keyword', () => {
    expect(lintImportDocument(withModel({ type: 'object', properties: { example: { type: 'string' }, oneOf: { type: 'string' } } }))).toEqual([]);
  });

  test('a model that no body validator reads, or that nothing uses, is flagged', () => {
    const unvalidated = withModel({ type: 'object' });
    delete unvalidated.paths['/things/{id}'].post['x-amazon-apigateway-request-validator'];
    expect(ruleIds(lintImportDocument(unvalidated))).toEqual(['models-only-where-validated']);
    const unused = minimal();
    unused.components = { schemas: { Orphan: { type: 'object' } } };
    expect(ruleIds(lintImportDocument(unused))).toEqual(['models-only-where-validated']);
  });

  test('every rule cites a documented restriction and is exercised above', () => {
    const exercised = new Set([...cases.map(([r]) => r), ...modelCases.map(([r]) => r), 'models-only-where-validated']);
    for (const rule of APIGATEWAY_RULES) {
      expect(rule.cites.length).toBeGreaterThan(30);
      expect(exercised.has(rule.id)).toBe(true);
    }
  });
});
