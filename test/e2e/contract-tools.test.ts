import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Parser as AsyncApiParser } from '@asyncapi/parser';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { CloudEvent } from 'cloudevents';
import { operations } from '../../functions/contract/operations';
import { buildImportDocument, PLACEHOLDER_TARGETS } from '../../lib/contract/import-document';
import { devSecrets, signedHeaders } from '../../lib/ingress/emit';
import { DEV_INGRESS_SECRETS_FILE } from '../../lib/local/service';
import { candidateUrls, exampleBodyFor, request, startCatalogueService, type CatalogueFixture } from './catalogue-support';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

let fx: CatalogueFixture;
let openapiFile: string;
const doc = (key: string) => JSON.parse(fx.site.get(key)!);

beforeAll(async () => {
  fx = await startCatalogueService();
  openapiFile = path.join(fx.siteDir, 'developers/openapi.json');
});
afterAll(async () => {
  await fx.close();
});

/** Runs a CLI and returns its stdout whatever its exit code (linters exit non-zero on findings). */
async function cli(file: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await run(file, args, { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    if (!failed.stdout) throw new Error(`${path.basename(file)} failed: ${failed.stderr}`);
    return failed.stdout;
  }
}

describe('openapi.json', () => {
  test('passes @redocly/cli lint with no error', async () => {
    const out = await cli(bin('redocly'), ['lint', openapiFile, '--format', 'json'], { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' });
    const report = JSON.parse(out.slice(out.indexOf('{')));
    const errors = report.problems.filter((p: any) => p.severity === 'error').map((p: any) => `${p.ruleId}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  test('passes Spectral (spectral:oas + OWASP, as narrowed and justified in .spectral.yaml) with no finding at any severity', async () => {
    const out = await cli(bin('spectral'), ['lint', openapiFile, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet']);
    const findings = (JSON.parse(out) as any[]).map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`);
    expect(findings).toEqual([]);
  });

  test('is the OpenAPI 3.1.0 contract of the whole table', () => {
    const openapi = doc('developers/openapi.json');
    expect(openapi.openapi).toBe('3.1.0');
    expect(openapi.info.version).toBe('1.0.0');
    expect(openapi['x-svc']).toMatchObject({ scope: 'PUBLIC_READ_ONLY', productionAuthorityCreated: false });
    const declared = Object.entries(openapi.paths).flatMap(([p, item]: [string, any]) => Object.keys(item).filter((m) => m !== 'servers').map((m) => `${m.toUpperCase()} ${p}`));
    expect(declared.sort()).toEqual(operations.map((op) => `${op.method} ${op.path}`).sort());
  });
});

describe('the API Gateway import document', () => {
  // swagger-parser loads an ES module that jest cannot require, so it runs in its own Node process.
  const swaggerValidate = async (file: string) => {
    const script = "require('@apidevtools/swagger-parser').validate(process.argv[1]).then((api) => console.log('VALID ' + api.openapi), (e) => console.log('INVALID ' + e.message))";
    const { stdout } = await run(process.execPath, ['-e', script, file], { cwd: ROOT });
    return stdout.trim();
  };

  test('is valid OpenAPI 3.0 (swagger-parser)', async () => {
    const importDoc = buildImportDocument(PLACEHOLDER_TARGETS);
    expect(importDoc.openapi).toMatch(/^3\.0\./);
    const file = path.join(fx.siteDir, 'apigateway-import.json');
    await writeFile(file, JSON.stringify(importDoc));
    expect(await swaggerValidate(file)).toBe(`VALID ${importDoc.openapi}`);
  });

  test('the validator is real: an import document with a dangling reference is refused', async () => {
    const importDoc = buildImportDocument(PLACEHOLDER_TARGETS);
    const firstPath = Object.keys(importDoc.paths)[0];
    importDoc.paths[firstPath].get.responses['200'] = { $ref: '#/components/responses/NoSuchResponse' };
    const file = path.join(fx.siteDir, 'broken-import.json');
    await writeFile(file, JSON.stringify(importDoc));
    expect(await swaggerValidate(file)).toMatch(/^INVALID /);
  });

  test('serves every document from the bucket with ETag, Cache-Control and If-None-Match forwarded', () => {
    const importDoc = buildImportDocument(PLACEHOLDER_TARGETS);
    for (const op of operations.filter((o) => o.integration.kind === 'document')) {
      const method = importDoc.paths[op.path].get;
      const integration = method['x-amazon-apigateway-integration'];
      expect(integration.uri).toBe(PLACEHOLDER_TARGETS.documentUri((op.integration as { key: string }).key));
      expect(integration.requestParameters['integration.request.header.If-None-Match']).toBe('method.request.header.If-None-Match');
      for (const status of ['2\\d{2}', '304']) {
        const passed = integration.responses[status].responseParameters;
        expect(passed['method.response.header.ETag']).toBe('integration.response.header.ETag');
        expect(passed['method.response.header.Cache-Control']).toBe('integration.response.header.Cache-Control');
        expect(passed['method.response.header.Content-Type']).toBe('integration.response.header.Content-Type');
      }
      expect(importDoc.paths[op.path]['x-amazon-apigateway-any-method'].responses['405']).toBeDefined();
    }
  });
});

describe('asyncapi.json and events/example.json', () => {
  test('asyncapi.json parses with @asyncapi/parser without errors', async () => {
    const { document, diagnostics } = await new AsyncApiParser().parse(fx.site.get('developers/asyncapi.json')!);
    const errors = diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`);
    expect(errors).toEqual([]);
    expect(document).toBeDefined();
    expect(document!.version()).toBe('3.0.0');
    // Each event a receiver takes has a second message: many of them in one delivery (CloudEvents' JSON batch format).
    const received = ['AuthorityObserved', 'CommercialSourceSnapshot', 'CredentialStatusChanged', 'ObjectStateChanged'];
    expect(document!.messages().all().map((m) => m.name()).sort()).toEqual([...received, 'CommercialProofSourceModified', ...received.map((n) => `${n}Batch`)].sort());
    // The receivers are the operations that receive the canonical events they accept, one at a time or in a batch.
    const receiving = document!.operations().all().filter((o) => o.action() === 'receive');
    expect(receiving.map((o) => o.id()).sort()).toEqual(received.map((n) => `receive${n}`));
    for (const operation of receiving) {
      expect(operation.messages().all().map((m) => m.contentType())).toEqual(['application/cloudevents+json', 'application/cloudevents-batch+json']);
    }
  });

  test('events/example.json is a valid CloudEvent (cloudevents SDK) with specversion 1.0', () => {
    const example = doc('developers/events/example.json');
    expect(example.specversion).toBe('1.0');
    const event = new CloudEvent(example);
    expect(event.validate()).toBe(true);
    expect(event.specversion).toBe('1.0');
    expect(event.type).toBe('svc.living-object.state-changed.v1');
  });

  test('the SDK check alone would not catch a wrong specversion, so the test checks it itself', () => {
    const wrong = { ...doc('developers/events/example.json'), specversion: '0.3' };
    expect(() => new CloudEvent(wrong).validate()).not.toThrow();
    expect(wrong.specversion).not.toBe('1.0');
  });

  test('every AsyncAPI message example is a valid CloudEvent too (each event of a batch example)', () => {
    const asyncapi = doc('developers/asyncapi.json');
    for (const message of Object.values(asyncapi.components.messages) as any[]) {
      for (const example of message.examples) {
        const events = message.contentType === 'application/cloudevents-batch+json' ? example.payload : [example.payload];
        expect(events.length).toBeGreaterThan(0);
        for (const event of events) {
          expect(event.specversion).toBe('1.0');
          expect(new CloudEvent(event).validate()).toBe(true);
        }
      }
    }
  });
});

describe('release-evidence/example.json', () => {
  test('its BOM validates with the CycloneDX strict 1.6 JSON validator', async () => {
    const evidence = doc('developers/release-evidence/example.json');
    const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(JSON.stringify(evidence.sbom));
    expect(errors).toBeNull();
  });

  test('the validator is real: a broken BOM is refused', async () => {
    const evidence = doc('developers/release-evidence/example.json');
    const broken = { ...evidence.sbom, components: [{ type: 'not-a-type', name: 'x' }] };
    const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(JSON.stringify(broken));
    expect(errors).not.toBeNull();
  });
});

describe('every success response (200, 202 for the receivers) of every operation validates against its schema in openapi.json', () => {
  test('ajv (draft 2020-12) with formats, one request per operation with demo values', async () => {
    const openapi = doc('developers/openapi.json');
    const BASE = 'https://contract.invalid/openapi.json';
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
    ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
    ajv.addSchema({ $id: BASE, components: openapi.components });
    const rebase = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${BASE}#/components/`));

    const failures: string[] = [];
    let validated = 0;
    const ingressExamples = doc('developers/sandbox/examples.json').ingress.examples as any[];
    const secrets = devSecrets(DEV_INGRESS_SECRETS_FILE);
    // A successor log's resources exist only after a key change, which the demo never makes (test/e2e/ledger-rotation.test.ts serves them).
    const checked = operations.filter((op) => op.operationId !== 'getLedgerSuccessorLogResource');
    for (const op of checked) {
      const status = op.response.status ?? 200;
      const content = openapi.paths[op.path][op.method.toLowerCase()].responses[String(status)].content;
      const [mediaType] = Object.keys(content);
      const validate = ajv.compile(rebase(content[mediaType].schema));
      let answered = false;
      for (const url of candidateUrls(op, fx.sources)) {
        // Receivers take signed events: the published example for the URL, signed by its source's development key.
        const example = ingressExamples.find((e) => e.url === url);
        const signed = example ? signedHeaders(JSON.stringify(example.body), [secrets[example.sourceId]]) : undefined;
        const sent = example ? example.body : op.method === 'POST' ? exampleBodyFor(url, fx.sources) : undefined;
        const res = await request(fx.service.url, op.method, url, sent, signed);
        if (res.status !== status) continue;
        answered = true;
        expect(`${op.operationId} ${res.headers.get('content-type')}`).toMatch(new RegExp(`^${op.operationId} ${mediaType.replace('+', '\\+')}`));
        const body = mediaType === 'application/json' ? res.json : res.text;
        if (!validate(body)) failures.push(`${op.operationId} (${url}): ${ajv.errorsText(validate.errors)}`);
        validated += 1;
        break;
      }
      if (!answered) failures.push(`${op.operationId}: no demo value produced a ${status} for ${op.method} ${op.path}`);
    }
    expect(failures).toEqual([]);
    expect(validated).toBe(checked.length);
  });

  test('the check is real: a body that breaks its schema is refused', async () => {
    const openapi = doc('developers/openapi.json');
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'https://contract.invalid/openapi.json', components: openapi.components });
    const validate = ajv.compile({ $ref: 'https://contract.invalid/openapi.json#/components/schemas/DeveloperCatalogue' });
    expect(validate(doc('developers/catalogue.json'))).toBe(true);
    expect(validate({ ...doc('developers/catalogue.json'), productionAuthorityCreated: true })).toBe(false);
  });
});

test('the linters read the files the build wrote (sanity: a broken contract fails redocly)', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-lint-'));
  const broken = path.join(dir, 'openapi.json');
  await writeFile(broken, JSON.stringify({ ...doc('developers/openapi.json'), info: undefined }));
  const out = await cli(bin('redocly'), ['lint', broken, '--format', 'json'], { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' });
  expect(JSON.parse(out.slice(out.indexOf('{'))).totals.errors).toBeGreaterThan(0);
  await rm(dir, { recursive: true, force: true });
});
