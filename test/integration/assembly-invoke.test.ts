import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { buildSync } from 'esbuild';
import { startIamEndpoint, type Denial, type IamEndpoint } from '../../lib/assembly/endpoints/iam-endpoint';
import { lambdaRules } from '../../lib/assembly/endpoints/lambda';
import { CredentialIssuer } from '../../lib/assembly/iam/credentials';
import { IamEvaluator } from '../../lib/assembly/iam/evaluator';
import type { PolicyModel } from '../../lib/assembly/iam/policy-model';
import { signRequest } from '../../lib/assembly/iam/sigv4';
import { FunctionHost } from '../../lib/assembly/lambda/function-host';
import { invokeForward } from '../../lib/assembly/lambda/invoke-api';
import { LocalFunctions } from '../../lib/assembly/lambda/local-functions';
import { AsyncInvoker } from '../../lib/assembly/lambda/event-sources';

/**
 * The assembly runner's Lambda endpoint (endpoints/lambda.ts, lambda/invoke-api.ts), with real
 * parts: functions running in execution environments of their own (FunctionHost), one of which
 * calls another with the real SDK client (@aws-sdk/client-lambda, pointed at the endpoint by
 * AWS_ENDPOINT_URL_LAMBDA, signing with its role's session), the IAM evaluator judging
 * lambda:InvokeFunction on the named function's ARN against the roles' policies. An allowed call
 * gets the function's answer, or its error as Lambda reports it; a role without the grant is
 * refused with AccessDeniedException (recorded as a denial); a function not here is 404, to a
 * caller allowed to invoke it.
 */
const ACCOUNT = '123456789012';
const REGION = 'eu-central-1';
const functionArn = (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;
const CALLER_ROLE = `arn:aws:iam::${ACCOUNT}:role/Caller`;
const STRANGER_ROLE = `arn:aws:iam::${ACCOUNT}:role/Stranger`;

const policy = (...Statement: unknown[]) => ({ Version: '2012-10-17', Statement });
const model: PolicyModel = {
  roles: new Map([
    [
      CALLER_ROLE,
      {
        arn: CALLER_ROLE,
        name: 'Caller',
        policies: [
          // As lib/stack/sequencer.ts grants its part writers: the function's ARN exactly (and, here, functions named retired-*, none of which exists).
          { name: 'invoke', policy: policy({ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: [functionArn('answerer'), functionArn('failer'), functionArn('retired-*')] }) },
        ],
      },
    ],
    [STRANGER_ROLE, { arn: STRANGER_ROLE, name: 'Stranger', policies: [{ name: 'nothing', policy: policy({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: '*' }) }] }],
  ]),
  resourcePolicies: new Map(),
  problems: [],
};

/** The functions' bundle: `call` invokes the function its event names with the SDK's client, as the sequencer invokes its part writers. */
const SOURCE = `
const { InvokeCommand, LambdaClient } = require('@aws-sdk/client-lambda');
const client = new LambdaClient({ maxAttempts: 1 });
exports.call = async (event) => {
  try {
    const out = await client.send(new InvokeCommand({ FunctionName: event.target, Payload: Buffer.from(JSON.stringify(event.payload ?? {})) }));
    return { status: out.StatusCode, functionError: out.FunctionError ?? null, answer: JSON.parse(Buffer.from(out.Payload).toString('utf8')) };
  } catch (error) {
    return { refused: { name: error.name, status: error.$metadata && error.$metadata.httpStatusCode, message: error.message } };
  }
};
exports.answer = async (event, context) => ({ answeredBy: context.functionName, received: event });
exports.fail = async () => {
  const error = new Error('the plan does not add up');
  error.name = 'PlanFailed';
  throw error;
};
`;

const work = mkdtempSync(path.join(tmpdir(), 'assembly-invoke-'));
const issuer = new CredentialIssuer();
const denials: Denial[] = [];
const functions = new LocalFunctions();
let endpoint: IamEndpoint;
let caller: FunctionHost;
let stranger: FunctionHost;

function addFunction(name: string, handler: string, roleArn: string): FunctionHost {
  const credentials = issuer.issue({ kind: 'role', roleArn, sessionName: name }, name);
  const host = new FunctionHost(
    {
      logicalId: name,
      name,
      arn: functionArn(name),
      handler,
      runtime: 'nodejs22.x',
      codeDirectory: work,
      environment: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: REGION,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_SESSION_TOKEN: credentials.sessionToken,
        AWS_ENDPOINT_URL_LAMBDA: endpoint.endpoint,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      memoryMb: 256,
      timeoutSeconds: 10,
    },
    path.join(work, 'bootstrap.js'),
    () => undefined,
  );
  functions.add({ host, credentials, asyncInvoker: new AsyncInvoker(host, { maxRetries: 0, maxEventAgeSeconds: 60 }, () => undefined) });
  return host;
}

beforeAll(async () => {
  buildSync({ entryPoints: [path.join(__dirname, '../../lib/assembly/lambda/bootstrap.ts')], outfile: path.join(work, 'bootstrap.js'), bundle: true, platform: 'node', format: 'cjs', logLevel: 'error' });
  // Bundled as a function's code is (the SDK inside), from this repository's node_modules.
  buildSync({ stdin: { contents: SOURCE, resolveDir: path.join(__dirname, '../..'), loader: 'js' }, outfile: path.join(work, 'index.js'), bundle: true, platform: 'node', format: 'cjs', logLevel: 'error' });
  const scope = { partition: 'aws', region: REGION, account: ACCOUNT };
  endpoint = await startIamEndpoint({
    rules: lambdaRules(scope),
    // Found when a request arrives: the functions are added after the endpoint started, as in the runner.
    forward: invokeForward(scope, (arn) => functions.find(arn)?.host),
    issuer,
    evaluator: new IamEvaluator(model, ACCOUNT, REGION),
    onDenied: (denial) => denials.push(denial),
  });
  caller = addFunction('caller', 'index.call', CALLER_ROLE);
  stranger = addFunction('stranger', 'index.call', STRANGER_ROLE);
  addFunction('answerer', 'index.answer', STRANGER_ROLE);
  addFunction('failer', 'index.fail', STRANGER_ROLE);
}, 60_000);

afterAll(async () => {
  for (const fn of functions.all()) await fn.host.close();
  await endpoint?.close();
  rmSync(work, { recursive: true, force: true });
});

/** What the calling function's handler answered (its invocation must succeed: a refusal is in its answer). */
async function callFrom(host: FunctionHost, target: string, payload?: unknown): Promise<Record<string, any>> {
  const outcome = await host.invoke({ target, payload });
  if (!outcome.ok) throw new Error(`${outcome.errorType}: ${outcome.errorMessage}`);
  return outcome.value as Record<string, any>;
}

test("a function whose role may invoke another gets that function's answer through the endpoint, by name or by ARN", async () => {
  expect(await callFrom(caller, 'answerer', { part: 3 })).toEqual({ status: 200, functionError: null, answer: { answeredBy: 'answerer', received: { part: 3 } } });
  expect((await callFrom(caller, functionArn('answerer'), { part: 4 })).answer).toEqual({ answeredBy: 'answerer', received: { part: 4 } });
  expect((await callFrom(caller, `${ACCOUNT}:function:answerer`)).status).toBe(200);
  expect(denials).toEqual([]);
});

test("a failing function's error comes back as Lambda reports it: 200, X-Amz-Function-Error Unhandled, its errorType and errorMessage", async () => {
  expect(await callFrom(caller, 'failer')).toEqual({ status: 200, functionError: 'Unhandled', answer: { errorType: 'PlanFailed', errorMessage: 'the plan does not add up' } });
});

test('a role without the grant is refused with AccessDeniedException (403), in Lambda\'s words, and the denial is recorded', async () => {
  const { refused } = await callFrom(stranger, 'answerer');
  expect(refused).toEqual({
    name: 'AccessDeniedException',
    status: 403,
    message: `User: arn:aws:sts::${ACCOUNT}:assumed-role/Stranger/stranger is not authorized to perform: lambda:InvokeFunction on resource: ${functionArn('answerer')} because no identity-based policy allows the lambda:InvokeFunction action`,
  });
  expect(denials.at(-1)).toMatchObject({ label: 'stranger', action: 'lambda:InvokeFunction', resource: functionArn('answerer') });
  // A qualified invocation is judged on the qualified ARN, which the caller's grant of the bare ARN does not cover.
  expect((await callFrom(caller, 'answerer:$LATEST')).refused).toMatchObject({ name: 'AccessDeniedException' });
  expect(denials.at(-1)).toMatchObject({ label: 'caller', resource: `${functionArn('answerer')}:$LATEST` });
});

test('the refusal on the wire: 403, x-amzn-errortype AccessDeniedException, a JSON body with Type and message', async () => {
  const { credentials } = functions.find('stranger')!;
  const url = new URL(endpoint.endpoint);
  const target = `/2015-03-31/functions/${encodeURIComponent(functionArn('answerer'))}/invocations`;
  const body = Buffer.from('{}');
  const headers = await signRequest({ method: 'POST', target, headers: { host: url.host, 'content-type': 'application/json' }, body }, 'lambda', REGION, credentials);
  const res = await fetch(new URL(target, url), { method: 'POST', headers, body });
  expect([res.status, res.headers.get('x-amzn-errortype')]).toEqual([403, 'AccessDeniedException']);
  expect(Object.keys((await res.json()) as Record<string, unknown>).sort()).toEqual(['Type', 'message']);
});

test('a function not here is 404 ResourceNotFoundException to a caller allowed to invoke it; to one who is not, IAM refuses first', async () => {
  const before = denials.length;
  expect((await callFrom(caller, 'retired-writer')).refused).toEqual({ name: 'ResourceNotFoundException', status: 404, message: `Function not found: ${functionArn('retired-writer')}` });
  expect(denials.length).toBe(before);
  expect((await callFrom(caller, 'elsewhere')).refused).toMatchObject({ name: 'AccessDeniedException', status: 403 });
});

test('only synchronous invocations: another invocation type is 400', async () => {
  const credentials = functions.find('caller')!.credentials;
  const client = new LambdaClient({ endpoint: endpoint.endpoint, region: REGION, credentials, maxAttempts: 1 });
  await expect(client.send(new InvokeCommand({ FunctionName: 'answerer', InvocationType: 'Event', Payload: Buffer.from('{}') }))).rejects.toMatchObject({
    name: 'InvalidParameterValueException',
    $metadata: { httpStatusCode: 400 },
  });
  client.destroy();
});
