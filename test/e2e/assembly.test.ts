import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BatchWriteItemCommand, GetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { eventIdentityDigest } from '../../functions/domain/ingress/identity';
import { partOf } from '../../functions/ledger-writer/parts';
import { eventPk, LEDGER_ITEM_SK, ledgerHeadPk, recordPk } from '../../functions/store/layout';
import { readCloudAssembly, type CfnTemplate } from '../../lib/assembly/cloud-assembly';
import { describeNotEmulated, startAssemblyRunner, type AssemblyRunner } from '../../lib/assembly/runner';
import { DEV_INGRESS_SECRETS_FILE, type LocalService } from '../../lib/local/service';
import { deliver, devSecrets, signedHeaders } from '../../lib/ingress/emit';
import { PROJECT_ROOT } from '../../lib/stack/trust-service-stack';
import { CREDENTIAL_CHANGED, emit } from '../support/ingress';
import { startTestService } from '../support/local';
import { synthesizedAssembly } from '../support/synth';

/**
 * The proof that what is deployed works: the stack synthesized as an operator synthesizes it
 * (`cdk synth`, shared with test/infra/synth.test.ts), run by `npm start -- --assembly DIR --demo`'s
 * runner (lib/assembly/runner.ts), driven over HTTP under its stage. Every operation's example
 * answers as under `npm start`; a signed event travels receiver -> table -> stream -> sequencer ->
 * read path with evidence `npm run verify` accepts; and two tampered copies of the template (a read
 * function's role without its table read, the sequencer's role without kms:Sign) are refused the
 * way AWS refuses them, then recover when the policies are deployed again. A batch cut in parts
 * reaches the part writers through the IAM-enforcing Lambda endpoint, as on AWS.
 */

const run = promisify(execFile);
let assemblyDir: string;
let runner: AssemblyRunner;
let local: LocalService;
const logLines: string[] = [];
const tampered: string[] = [];
const anchor = new Date();

/** Every /health answer while the runner was being brought up, with whether the demo's records were loaded when it was asked. */
const startupHealth: Array<{ status: number | 'refused'; health: string | null; loadedBefore: boolean }> = [];
const DEMO_LOADED = /^demo: \d+ records loaded/;

/** Asks /health at the stage's address every 20 ms until `done` says stop. */
async function watchHealth(url: string, done: () => boolean): Promise<void> {
  while (!done()) {
    const loadedBefore = logLines.some((line) => DEMO_LOADED.test(line));
    try {
      const res = await fetch(url);
      const body = (await res.json()) as { status?: string };
      startupHealth.push({ status: res.status, health: res.status === 200 ? (body.status ?? null) : null, loadedBefore });
    } catch {
      startupHealth.push({ status: 'refused', health: null, loadedBefore });
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  assemblyDir = (await synthesizedAssembly()).dir;
  const port = await freePort();
  const stage = Object.values(readCloudAssembly(assemblyDir).template.Resources).find((r) => r.Type === 'AWS::ApiGateway::Stage')!.Properties!.StageName;
  let started = false;
  const watching = watchHealth(`http://127.0.0.1:${port}/${stage}/health`, () => started);
  try {
    [runner, local] = await Promise.all([
      startAssemblyRunner({ assemblyDir, demo: true, anchor, port, log: (line) => logLines.push(line), scheduleTimers: false }),
      startTestService(anchor),
    ]);
  } finally {
    started = true;
    await watching;
  }
  // The shared synthesis may take up to its own wait limit (5 min, test/support/synth.ts) on a busy machine; then the runner starts.
}, 420_000);

afterAll(async () => {
  await runner?.close();
  await local?.close();
  for (const dir of tampered) rmSync(dir, { recursive: true, force: true });
});

/** The synthesized template (about 480 KB), read once; tamperedCopy reads its own to edit. */
let synthesized: CfnTemplate | undefined;
const template = (): CfnTemplate => (synthesized ??= readCloudAssembly(assemblyDir).template);

/** A copy of the assembly with an edited template (every other file linked, not copied). */
function tamperedCopy(edit: (template: CfnTemplate) => void): string {
  const assembly = readCloudAssembly(assemblyDir);
  const dir = mkdtempSync(path.join(tmpdir(), 'assembly-tampered-'));
  tampered.push(dir);
  for (const name of readdirSync(assemblyDir)) {
    if (path.join(assemblyDir, name) !== assembly.templateFile) symlinkSync(path.join(assemblyDir, name), path.join(dir, name));
  }
  const edited = structuredClone(assembly.template);
  edit(edited);
  writeFileSync(path.join(dir, path.basename(assembly.templateFile)), JSON.stringify(edited));
  return dir;
}

/** The logical id of the role of the function whose description ends with `(operationId)`, or of the sequencer. */
function roleOf(t: CfnTemplate, which: (description: string, logicalId: string) => boolean): string {
  const fn = Object.entries(t.Resources).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && which(String(r.Properties?.Description ?? ''), id));
  if (!fn) throw new Error('no such function in the template');
  return (fn[1].Properties!.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

function policiesOf(t: CfnTemplate, roleId: string) {
  return Object.values(t.Resources).filter((r) => r.Type === 'AWS::IAM::Policy' && (r.Properties!.Roles as Array<{ Ref?: string }>).some((ref) => ref.Ref === roleId));
}

interface Answer {
  status: number;
  contentType: string | null;
  cacheControl: string | null;
  body: string;
  json: any;
}

async function call(base: string, method: string, url: string, body?: string): Promise<Answer> {
  const res = await fetch(`${base}${url}`, { method, ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control'), body: text, json };
}

/**
 * What may differ between two hosts of the same service and data: their URLs, their ledger key and
 * origin (a KMS stand-in's key here, the development key under npm start) and the signatures made
 * with them, the instants and durations of the moment, identifiers and digests derived from those
 * (the ingress examples are dated at start), and the QR code of a URL.
 */
function normalized(text: string, base: string, ledger: { origin: string; verifierKeys: Array<{ verifierKey: string; publicKey: string; keyId: string }> }): string {
  // Pages put line-break opportunities (<wbr>) into codes and addresses: compared without them.
  let out = text.replace(/<wbr>/g, '').split(base).join('<base>').replace(/http:\/\/127\.0\.0\.1:\d+(\/live)?/g, '<base>');
  for (const key of ledger.verifierKeys) out = out.split(key.verifierKey).join('<verifier-key>').split(key.publicKey).join('<public-key>').split(key.keyId).join('<key-id>');
  return out
    .split(ledger.origin)
    .join('<ledger-origin>')
    .replace(/— <ledger-origin> [A-Za-z0-9+/=]+/g, '— <ledger-origin> <signature>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, '<instant>')
    // A page's "as of" is the instant it was answered, shown to the minute: the two answers may fall either side of one.
    .replace(/(as of <time datetime="<instant>">)[^<]*(<\/time>)/g, '$1<shown>$2')
    .replace(/"(durationMs|ageSeconds|lagSeconds)":\d+/g, '"$1":<n>')
    .replace(/READY, \d+ ms/g, 'READY, <n> ms')
    .replace(/checked in \d+ ms/g, 'checked in <n> ms')
    .replace(/(M\d+,\d+h10v10h-10z)+/g, '<qr>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
    .replace(/\b[0-9a-f]{64}\b/g, '<sha256>')
    .replace(/\b[0-9a-f]{40}\b/g, '<commit>')
    // The runner serves the documents the stack deploys, built for a deployment (docs/catalogues.md).
    .replace(/Environment: (local \(npm start\)|production \(a deployment of the stack\))\./g, 'Environment: <environment>.');
}

/**
 * openapi.json and contracts.json list the component schemas in the order the building process
 * first met them, which depends on what that process had loaded before (the stack's synthesis vs
 * npm start's process): they are compared as sets.
 */
function comparable(url: string, text: string): string {
  if (url.endsWith('/openapi.json')) {
    const document = JSON.parse(text);
    document.components.schemas = Object.fromEntries(Object.entries(document.components.schemas).sort(([a], [b]) => a.localeCompare(b)));
    return JSON.stringify(document, null, 2);
  }
  if (url.endsWith('/contracts.json')) {
    const document = JSON.parse(text);
    document.schemas.sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name));
    return JSON.stringify(document, null, 2);
  }
  return text;
}

test('the runner names what it does not emulate, and runs every Node.js function of the template from its bundle', () => {
  const described = describeNotEmulated(runner.notEmulated).join('\n');
  expect(described).toMatch(/AWS::Logs::LogGroup: log lines are printed here instead/);
  expect(described).toMatch(/AWS::Lambda::Function: python3\.\d+: only Node.js functions run here/);
  // Every server the runner started is listed by its resource's logical id, the stage among them.
  expect(Object.values(runner.urls)).toContain(runner.invokeUrl);
  const nodeFunctions = Object.values(template().Resources).filter((r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties?.Runtime).startsWith('nodejs'));
  expect(runner.functions.size).toBe(nodeFunctions.length);
  for (const host of runner.functions.values()) {
    const variables = template().Resources[host.definition.logicalId].Properties!.Environment?.Variables ?? {};
    const env = host.definition.environment;
    // Exactly the template's variables (and Lambda's own, the role's session, the endpoints): none of the runner's.
    for (const name of Object.keys(variables)) expect(env).toHaveProperty(name);
    const extra = Object.keys(env).filter((name) => !(name in variables));
    expect(extra.filter((name) => !/^(AWS_|TZ$|LANG$|PATH$)/.test(name))).toEqual([]);
    expect(env.AWS_ENDPOINT_URL_DYNAMODB).toBe(runner.endpoints.dynamodb);
    expect(host.definition.memoryMb).toBe(template().Resources[host.definition.logicalId].Properties!.MemorySize);
    expect(host.definition.timeoutSeconds).toBe(template().Resources[host.definition.logicalId].Properties!.Timeout);
  }
});

test("every operation's example from /developers/sandbox/examples.json answers as it does under npm start", async () => {
  const examples = (await call(runner.invokeUrl, 'GET', '/developers/sandbox/examples.json')).json;
  const calls: Array<{ method: string; url: string; body?: string }> = [
    ...examples.tryIt.map((t: { method: string; url: string }) => ({ method: t.method, url: t.url })),
    ...examples.examples.map((e: { method: string; path: string; body: unknown }) => ({ method: e.method, url: e.path, body: JSON.stringify(e.body) })),
  ];
  expect(calls.length).toBeGreaterThan(40);
  const runnerLedger = (await call(runner.invokeUrl, 'GET', '/v1/ledger')).json;
  const localLedger = (await call(local.url, 'GET', '/v1/ledger')).json;
  const differences: string[] = [];
  for (const c of calls) {
    const [deployed, started] = await Promise.all([call(runner.invokeUrl, c.method, c.url, c.body), call(local.url, c.method, c.url, c.body)]);
    const what = `${c.method} ${c.url}`;
    if (deployed.status !== started.status) differences.push(`${what}: status ${deployed.status}, npm start ${started.status}`);
    if (deployed.contentType?.split(';')[0] !== started.contentType?.split(';')[0]) differences.push(`${what}: Content-Type ${deployed.contentType}, npm start ${started.contentType}`);
    if (deployed.cacheControl !== started.cacheControl) differences.push(`${what}: Cache-Control ${deployed.cacheControl}, npm start ${started.cacheControl}`);
    const a = comparable(c.url, normalized(deployed.body, runner.invokeUrl, runnerLedger));
    const b = comparable(c.url, normalized(started.body, local.url, localLedger));
    if (a !== b) {
      const at = [...a].findIndex((ch, i) => ch !== b[i]);
      differences.push(`${what}: bodies differ at ${at}: ${JSON.stringify(a.slice(Math.max(0, at - 60), at + 60))} vs ${JSON.stringify(b.slice(Math.max(0, at - 60), at + 60))}`);
    }
  }
  expect(differences).toEqual([]);
}, 120_000);

test('/health never says OK before the demo data is loaded: while the stack is brought up the stage refuses or answers 503, then OK', async () => {
  const answers = startupHealth.map((a) => `${a.status} ${a.health ?? ''}`.trim());
  // The watch began before the stage listened and saw it closed while the demo loaded.
  expect(startupHealth.some((a) => a.status === 503)).toBe(true);
  expect(startupHealth.filter((a) => a.status === 200 && !a.loadedBefore)).toEqual([]);
  expect(answers.filter((a) => a.startsWith('200')).every((a) => a === '200 OK')).toBe(true);
  expect(answers.filter((a) => !a.startsWith('200') && a !== 'refused' && a !== '503')).toEqual([]);
  expect(((await call(runner.invokeUrl, 'GET', '/health')).json as { status: string }).status).toBe('OK');
});

test('every published ingress example, signed by its source, is integrated as it is (the read shows its expect); the state change carries evidence npm run verify accepts', async () => {
  const { examples } = (await call(runner.invokeUrl, 'GET', '/developers/sandbox/examples.json')).json.ingress;
  expect(examples.length).toBeGreaterThanOrEqual(3);
  const secrets = devSecrets(DEV_INGRESS_SECRETS_FILE);
  for (const example of examples) {
    // Derived from the demo records this deployment loaded: no template fields left to fill.
    expect([example.name, example.fill]).toEqual([example.name, undefined]);
    const body = JSON.stringify(example.body);
    const delivered = await deliver(runner.invokeUrl, example.url, body, signedHeaders(body, [secrets[example.sourceId]]));
    expect([example.name, delivered.status]).toEqual([example.name, 202]);
  }
  // The receivers stored pending items; the stream mapping hands them to the sequencer (its batching window, then one batch).
  await runner.settled();
  const setAside = logLines.filter((line) => line.includes('delivery set aside'));
  expect(setAside).toEqual([]);
  for (const example of examples) {
    const read = await call(runner.invokeUrl, 'GET', example.expect.path);
    const value = example.expect.field.split('.').reduce((node: any, key: string) => node?.[key], read.json);
    expect([example.name, value]).toEqual([example.name, example.expect.value]);
  }
  const changed = examples.find((e: { name: string }) => e.name === 'lifecycle-state-changed');
  const object = await call(runner.invokeUrl, 'GET', changed.expect.path);
  expect([object.status, object.json.current.state, object.json.current.evidenceIntegrityConfirmed]).toEqual([200, changed.expect.value, true]);
  const sequencer = [...runner.functions.values()].find((f) => f.definition.logicalId.startsWith('SequencerFunction'))!;
  expect(logLines.some((line) => line.startsWith(sequencer.definition.name) && line.includes('"message":"sequenced"') && line.includes('"trigger":"stream"'))).toBe(true);
  const verify = await run(path.join(PROJECT_ROOT, 'node_modules/.bin/tsx'), ['bin/verify.ts', `${runner.invokeUrl}${changed.expect.path}`, '--key', runner.verifierKey!], { cwd: PROJECT_ROOT });
  expect(verify.stdout).toMatch(/verified/i);
}, 60_000);

test('the demo publishes the examples as an operator\'s load does, signed in as the loader role: a template whose loader role may not put them fails the demo, naming s3:PutObject', async () => {
  expect(logLines).toContainEqual(expect.stringMatching(/^demo: developers\/sandbox\/examples\.json published by the loader role/));
  const withoutPublishing = tamperedCopy((t) => {
    const loaderRole = Object.entries(t.Resources).find(([, r]) => r.Type === 'AWS::IAM::Role' && String(r.Properties?.Description ?? '').startsWith('Loads records into the record table'))![0];
    for (const policy of policiesOf(t, loaderRole)) {
      const document = policy.Properties!.PolicyDocument;
      document.Statement = document.Statement.filter((s: { Resource: unknown }) => !JSON.stringify(s.Resource).includes('developers/sandbox/examples.json'));
    }
  });
  const lines: string[] = [];
  const started = startAssemblyRunner({ assemblyDir: withoutPublishing, demo: true, anchor, port: await freePort(), log: (line) => lines.push(line), scheduleTimers: false });
  await expect(started).rejects.toThrow(/AccessDenied|not authorized/);
  // Everything else the load did as the loader role was allowed (the table, the tile log, the key): the one refusal is that put.
  const refusals = lines.filter((line) => line.startsWith('IAM ') && line.includes('AccessDenied'));
  expect(refusals).toHaveLength(1);
  expect(refusals[0]).toMatch(/^IAM {2}loader: AccessDenied s3:PutObject on \S+\/developers\/sandbox\/examples\.json /);
}, 180_000);

test("a read function's role stripped of its table read: its route answers 503, the others still work, and the log names the denied action", async () => {
  const stripped = tamperedCopy((t) => {
    const role = roleOf(t, (description) => description.endsWith('(resolveObject)'));
    for (const policy of policiesOf(t, role)) {
      const document = policy.Properties!.PolicyDocument;
      document.Statement = document.Statement.filter((s: { Action: string | string[] }) => ![s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    }
  });
  runner.deployPolicies(stripped);
  try {
    const refused = await call(runner.invokeUrl, 'GET', `/v1/objects/${DEMO_OBJECTS.revoked}`);
    expect([refused.status, refused.json.code]).toEqual([503, 'DEPENDENCY_UNAVAILABLE']);
    expect((await call(runner.invokeUrl, 'GET', `/v1/commercial-proofs/${DEMO_PROOFS.current}`)).status).toBe(200);
    expect((await call(runner.invokeUrl, 'GET', '/developers/catalogue.json')).status).toBe(200);
    const resolveObject = [...runner.functions.values()].find((f) => f.definition.logicalId.startsWith('OperationsresolveObject'))!;
    expect(runner.denials.at(-1)).toMatchObject({ label: resolveObject.definition.name, action: 'dynamodb:Query' });
    // The function's own log says why it answered 503: the store refused, naming the action.
    expect(logLines.some((line) => line.startsWith(resolveObject.definition.name) && line.includes('dynamodb:Query'))).toBe(true);
  } finally {
    runner.deployPolicies(assemblyDir);
  }
  expect((await call(runner.invokeUrl, 'GET', `/v1/objects/${DEMO_OBJECTS.revoked}`)).status).toBe(200);
}, 60_000);

test("the sequencer's role stripped of kms:Sign: nothing is signed, nothing is lost, and the event is integrated once the permission is back", async () => {
  const unsigned = tamperedCopy((t) => {
    const role = roleOf(t, (_description, id) => id.startsWith('SequencerFunction'));
    for (const policy of policiesOf(t, role)) {
      for (const statement of policy.Properties!.PolicyDocument.Statement as Array<{ Action: string | string[] }>) {
        statement.Action = [statement.Action].flat().filter((a) => a !== 'kms:Sign');
      }
    }
  });
  const treeSize = async () => Number((await call(runner.invokeUrl, 'GET', '/ledger/checkpoint')).body.split('\n')[1]);
  const status = async () => (await call(runner.invokeUrl, 'GET', `/v1/credentials/verify/${DEMO_CREDENTIALS.active}`)).json.status;
  const sizeBefore = await treeSize();
  expect(await status()).toBe('ACTIVE');
  const deadLetters = Object.keys(template().Resources).find((id) => id.startsWith('SequencerDeadLetters') && template().Resources[id].Type === 'AWS::SQS::Queue')!;

  runner.deployPolicies(unsigned);
  // A status change is a new version of the credential: integrating it appends to the ledger and needs a signed checkpoint.
  const delivered = await emit(runner.invokeUrl, CREDENTIAL_CHANGED, DEMO_CREDENTIALS.active, { previousStatus: 'ACTIVE', status: 'SUSPENDED' });
  expect(delivered.status).toBe(202);
  // The stream batch fails on Sign, is retried as the mapping says, and is then described to the dead-letter queue.
  await runner.settled();
  expect(runner.denials.some((d) => d.action === 'kms:Sign')).toBe(true);
  expect(await treeSize()).toBe(sizeBefore);
  expect(await status()).toBe('ACTIVE');
  const failure = runner.queueMessages(deadLetters).map((m) => JSON.parse(m.body));
  expect(failure.at(-1)).toMatchObject({ requestContext: { condition: 'RetryAttemptsExhausted' }, DDBStreamBatchInfo: { batchSize: 1 } });
  // Nothing is lost: the event still waits in the table, in the pending index (docs/ingress.md#exactly-once-per-event).
  const store = new DynamoDBClient({ endpoint: runner.backends.dynamodb, region: 'eu-central-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const pending = await store.send(
    new GetItemCommand({ TableName: runner.outputs.TableName, Key: { pk: { S: eventPk('service-platform', eventIdentityDigest(JSON.parse(delivered.sent.body))) }, sk: { S: '#' } }, ConsistentRead: true }),
  );
  store.destroy();
  expect(pending.Item?.queue).toBeDefined();

  runner.deployPolicies(assemblyDir);
  await runner.fireSchedules();
  expect(await treeSize()).toBeGreaterThan(sizeBefore);
  expect(await status()).toBe('SUSPENDED');
}, 90_000);

describe('a batch cut in parts: the sequencer invokes its part writers through the IAM-enforcing Lambda endpoint', () => {
  const functionOf = (prefix: string) => [...runner.functions.values()].find((f) => f.definition.logicalId.startsWith(prefix))!;
  // Three credentials whose status changes fall in different parts of a batch of two or three (partOf): the batch is cut in two parts at least.
  const changes = [
    [DEMO_CREDENTIALS.suspended, 'SUSPENDED', 'ACTIVE'],
    [DEMO_CREDENTIALS.reinstated, 'ACTIVE', 'SUSPENDED'],
    [DEMO_CREDENTIALS.unconfirmed, 'ACTIVE', 'SUSPENDED'],
  ] as const;

  test('the part writers run as the template defines them: reserved concurrency, role and log group of their own', () => {
    const parts = functionOf('SequencerParts');
    const props = template().Resources[parts.definition.logicalId].Properties!;
    expect(parts.definition.reservedConcurrency).toBe(props.ReservedConcurrentExecutions);
    expect(parts.definition.reservedConcurrency).toBeGreaterThan(1);
    const logGroup = (props.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    expect(parts.definition.environment.AWS_LAMBDA_LOG_GROUP_NAME).toMatch(new RegExp(`^${runner.stackName}-${logGroup}-`));
    // Its own role's session, not the sequencer's.
    expect(parts.definition.environment.AWS_ACCESS_KEY_ID).not.toBe(functionOf('SequencerFunction').definition.environment.AWS_ACCESS_KEY_ID);
    expect(functionOf('SequencerFunction').definition.environment).toMatchObject({ SEQUENCER_PART_FUNCTION: parts.definition.name, AWS_ENDPOINT_URL_LAMBDA: runner.endpoints.lambda });
  });

  test('a few events, one part each (SEQUENCER_EVENTS_PER_PART=1): each part planned and written by a part writer, every event integrated with evidence npm run verify accepts, no call refused', async () => {
    const sequencer = functionOf('SequencerFunction');
    const parts = functionOf('SequencerParts');
    expect(new Set(changes.map(([reference]) => partOf(reference, 2))).size).toBe(2);
    expect(new Set(changes.map(([reference]) => partOf(reference, 3))).size).toBe(2);
    const treeSize = async () => Number((await call(runner.invokeUrl, 'GET', '/ledger/checkpoint')).body.split('\n')[1]);
    const sizeBefore = await treeSize();
    const [denialsBefore, linesBefore] = [runner.denials.length, logLines.length];
    const restore = runner.overrideEnvironment(sequencer.definition.logicalId, { SEQUENCER_EVENTS_PER_PART: '1' });
    try {
      // Delivered together: the stream mapping's batching window hands them to the sequencer as one batch.
      const delivered = await Promise.all(changes.map(([reference, previousStatus, status]) => emit(runner.invokeUrl, CREDENTIAL_CHANGED, reference, { previousStatus, status })));
      expect(delivered.map((d) => d.status)).toEqual([202, 202, 202]);
      await runner.settled();
    } finally {
      restore();
    }
    const lines = logLines.slice(linesBefore);
    const done = lines.filter((line) => line.startsWith(`${parts.definition.name} `) && line.includes('"message":"part done"'));
    const planned = done.filter((line) => line.includes('"planned"'));
    expect(planned.length).toBeGreaterThanOrEqual(2);
    expect(done.filter((line) => line.includes('"written"'))).toHaveLength(planned.length);
    expect(lines.some((line) => line.startsWith(`${sequencer.definition.name} `) && line.includes('"message":"sequenced"'))).toBe(true);
    expect(runner.denials.slice(denialsBefore)).toEqual([]);
    expect(lines.filter((line) => line.includes('delivery set aside') || line.includes('PartWriterError'))).toEqual([]);

    for (const [reference, , status] of changes) {
      const read = await call(runner.invokeUrl, 'GET', `/v1/credentials/verify/${reference}`);
      expect([reference, read.json.status]).toEqual([reference, status]);
    }
    expect(await treeSize()).toBeGreaterThanOrEqual(sizeBefore + changes.length);
    const verify = await run(path.join(PROJECT_ROOT, 'node_modules/.bin/tsx'), ['bin/verify.ts', `${runner.invokeUrl}/v1/credentials/verify/${changes[1][0]}`, '--key', runner.verifierKey!], { cwd: PROJECT_ROOT });
    expect(verify.stdout).toMatch(/verified/i);
  }, 90_000);

  test("the part writers' role may not touch the ledger: a ledger item (L#) read or written as it is refused, and recorded", async () => {
    const parts = functionOf('SequencerParts');
    const env = parts.definition.environment;
    const credentials = { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN };
    const client = new DynamoDBClient({ endpoint: runner.endpoints.dynamodb, region: 'eu-central-1', credentials, maxAttempts: 1 });
    const TableName = runner.outputs.TableName;
    const before = runner.denials.length;
    try {
      // A record is its to read.
      await expect(client.send(new GetItemCommand({ TableName, Key: { pk: { S: recordPk(DEMO_CREDENTIALS.active) }, sk: { S: LEDGER_ITEM_SK } } }))).resolves.toBeDefined();
      const forged = { pk: { S: ledgerHeadPk() }, sk: { S: LEDGER_ITEM_SK }, forged: { BOOL: true } };
      await expect(client.send(new BatchWriteItemCommand({ RequestItems: { [TableName]: [{ PutRequest: { Item: forged } }] } }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
      await expect(client.send(new GetItemCommand({ TableName, Key: { pk: forged.pk, sk: forged.sk } }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    } finally {
      client.destroy();
    }
    expect(runner.denials.slice(before)).toMatchObject([
      { label: parts.definition.name, action: 'dynamodb:BatchWriteItem' },
      { label: parts.definition.name, action: 'dynamodb:GetItem' },
    ]);
    // Nothing reached the table.
    const store = new DynamoDBClient({ endpoint: runner.backends.dynamodb, region: 'eu-central-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const head = await store.send(new GetItemCommand({ TableName, Key: { pk: { S: ledgerHeadPk() }, sk: { S: LEDGER_ITEM_SK } }, ConsistentRead: true }));
    store.destroy();
    expect(head.Item?.forged).toBeUndefined();
  });
});

describe('the CloudFront distribution, served by its behaviours', () => {
  /** The distribution's local URL (the runner's server for the template's AWS::CloudFront::Distribution). */
  const edge = () => Object.entries(runner.urls).find(([id]) => template().Resources[id]?.Type === 'AWS::CloudFront::Distribution')![1];
  const distributionOf = (t: CfnTemplate) => Object.values(t.Resources).find((r) => r.Type === 'AWS::CloudFront::Distribution')!.Properties!.DistributionConfig;

  test('every example answers through the edge as it does at the stage (the API behind it)', async () => {
    const examples = (await call(runner.invokeUrl, 'GET', '/developers/sandbox/examples.json')).json;
    const calls: Array<{ method: string; url: string; body?: string }> = [
      ...examples.tryIt.map((t: { method: string; url: string }) => ({ method: t.method, url: t.url })),
      ...examples.examples.map((e: { method: string; path: string; body: unknown }) => ({ method: e.method, url: e.path, body: JSON.stringify(e.body) })),
    ];
    const ledger = (await call(runner.invokeUrl, 'GET', '/v1/ledger')).json;
    const differences: string[] = [];
    for (const c of calls) {
      const [viaEdge, atStage] = [await call(edge(), c.method, c.url, c.body), await call(runner.invokeUrl, c.method, c.url, c.body)];
      const what = `${c.method} ${c.url}`;
      if (viaEdge.status !== atStage.status) differences.push(`${what}: ${viaEdge.status} through the edge, ${atStage.status} at the stage`);
      if (viaEdge.contentType !== atStage.contentType || viaEdge.cacheControl !== atStage.cacheControl) differences.push(`${what}: headers differ`);
      if (normalized(viaEdge.body, edge(), ledger) !== normalized(atStage.body, runner.invokeUrl, ledger)) differences.push(`${what}: bodies differ`);
    }
    expect(differences).toEqual([]);
  }, 120_000);

  test('the functions build their links on the distribution\'s URL, the one the stack gave them', async () => {
    const object = await call(runner.invokeUrl, 'GET', `/v1/objects/${DEMO_OBJECTS.current}`);
    expect(object.body).toContain(edge());
    expect(object.body).not.toMatch(/cloudfront\.net/);
    expect(runner.outputs.EdgeUrl).toBe(edge());
  });

  test('the tile log comes from the bucket, read as this distribution (its bucket policy statement removed: 403; a missing tile: 404)', async () => {
    const atStage = await call(runner.invokeUrl, 'GET', '/ledger/checkpoint');
    const viaEdge = await fetch(`${edge()}/ledger/checkpoint`, { headers: { origin: 'https://monitor.example' } });
    expect([viaEdge.status, await viaEdge.text()]).toEqual([200, atStage.body]);
    expect(viaEdge.headers.get('cache-control')).toBe(atStage.cacheControl);
    expect(viaEdge.headers.get('access-control-allow-origin')).toBe('*');
    expect(viaEdge.headers.get('x-content-type-options')).toBe('nosniff');
    const size = Number(atStage.body.split('\n')[1]);
    const partial = `/ledger/tile/0/000.p/${size % 256}`;
    expect((await call(edge(), 'GET', partial)).status).toBe(200);
    expect((await call(edge(), 'GET', '/ledger/tile/0/x999/999')).status).toBe(404);

    const unread = tamperedCopy((t) => {
      for (const policy of Object.values(t.Resources).filter((r) => r.Type === 'AWS::S3::BucketPolicy')) {
        const document = policy.Properties!.PolicyDocument;
        document.Statement = document.Statement.filter((s: { Principal?: { Service?: string } }) => s.Principal?.Service !== 'cloudfront.amazonaws.com');
      }
    });
    runner.deployPolicies(unread);
    try {
      expect((await call(edge(), 'GET', '/ledger/checkpoint')).status).toBe(403);
      expect((await call(edge(), 'GET', '/ledger/tile/0/x999/999')).status).toBe(403);
    } finally {
      runner.deployPolicies(assemblyDir);
    }
    expect((await call(edge(), 'GET', '/ledger/checkpoint')).status).toBe(200);
  });

  test('the negotiation function runs at the edge: the page speaks the language the header asks for, and its errors take the form Accept asks for', async () => {
    const german = await fetch(`${edge()}/trust-receipt/${DEMO_OBJECTS.current}`, { headers: { accept: 'text/html', 'accept-language': 'it;q=1, de-AT;q=0.8' } });
    expect([german.status, german.headers.get('content-language')]).toEqual([200, 'de']);
    await german.arrayBuffer();
    const missing = `/trust-receipt/ORD-2099-9999`;
    const forBrowser = await fetch(`${edge()}${missing}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    const forScript = await fetch(`${edge()}${missing}`);
    expect([forBrowser.status, forBrowser.headers.get('content-type')?.split(';')[0]]).toEqual([404, 'text/html']);
    expect([forScript.status, forScript.headers.get('content-type')?.split(';')[0]]).toEqual([404, 'application/problem+json']);
    await Promise.all([forBrowser.arrayBuffer(), forScript.arrayBuffer()]);
  });

  test('a template whose tile behaviour points at the API is refused before anything is served, naming the pattern', async () => {
    const misrouted = tamperedCopy((t) => {
      const config = distributionOf(t);
      const apiOrigin = config.Origins.find((o: { CustomOriginConfig?: unknown }) => o.CustomOriginConfig).Id;
      config.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/ledger/*').TargetOriginId = apiOrigin;
    });
    await expect(startAssemblyRunner({ assemblyDir: misrouted, log: () => undefined, scheduleTimers: false })).rejects.toThrow(
      /the behaviour \/ledger\/\* sends GET \/ledger\/checkpoint to the REST API .* reads it from the bucket/,
    );
  }, 60_000);

  test('and so is one whose API routes would be asked of the bucket', async () => {
    const misrouted = tamperedCopy((t) => {
      const config = distributionOf(t);
      const bucketOrigin = config.Origins.find((o: { S3OriginConfig?: unknown }) => o.S3OriginConfig).Id;
      config.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/v1/*').TargetOriginId = bucketOrigin;
    });
    await expect(startAssemblyRunner({ assemblyDir: misrouted, log: () => undefined, scheduleTimers: false })).rejects.toThrow(
      /patterns \/v1\/\*\):\n.*the behaviour \/v1\/\* sends GET \/v1\/objects\/\{reference\} to the bucket .* must go to the REST API at its stage \/live/s,
    );
  }, 60_000);
});

test('stage throttling answers 429 as the THROTTLED gateway response defines; compression from the minimum size for clients that accept it', async () => {
  const compressed = await fetch(`${runner.invokeUrl}/developers/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
  expect(compressed.headers.get('content-encoding')).toBe('gzip');
  await compressed.arrayBuffer();
  const small = await fetch(`${runner.invokeUrl}/health`, { headers: { 'accept-encoding': 'gzip' } });
  expect(small.headers.get('content-encoding')).toBeNull();
  await small.arrayBuffer();
  // Preflights are mock integrations: no function is started, only the stage's token bucket is spent,
  // in bursts larger than it holds until it runs dry (however slowly this machine sends them).
  const preflight = () => fetch(`${runner.invokeUrl}/health`, { method: 'OPTIONS' }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.text() }));
  const answers: Array<Awaited<ReturnType<typeof preflight>>> = [];
  for (let burst = 0; burst < 10 && !answers.some((a) => a.status === 429); burst++) answers.push(...(await Promise.all(Array.from({ length: 300 }, preflight))));
  const throttled = answers.filter((a) => a.status === 429);
  expect(throttled.length).toBeGreaterThan(0);
  expect(answers.filter((a) => a.status !== 429 && a.status !== 204)).toEqual([]);
  expect(throttled[0].retryAfter).toBe('1');
  expect(JSON.parse(throttled[0].body)).toMatchObject({ status: 429, code: 'THROTTLED' });
}, 60_000);
