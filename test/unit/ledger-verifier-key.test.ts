import { createServer, type AddressInfo } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import type { Context } from 'aws-lambda';
import { handler, learnVerifierKey } from '../../functions/handlers/ledger-verifier-key';
import { startKmsStandIn, type KmsStandIn } from '../../lib/local/kms-stand-in';

/**
 * The deploy-time custom resource (functions/handlers/ledger-verifier-key.ts) against the KMS
 * stand-in over HTTP, as the function reaches KMS in AWS: it learns the verifier key from the key's
 * public half, refuses a pinned key that is not the KMS key's (naming both), and answers
 * CloudFormation at the request's ResponseURL.
 */

const ORIGIN = 'verify.example.org/ledger';
const CONTEXT = { awsRequestId: 'req-1', functionName: 'verifier-key' } as unknown as Context;
let kms: KmsStandIn;
const saved = { ...process.env };

beforeAll(async () => {
  kms = await startKmsStandIn();
  Object.assign(process.env, { AWS_ENDPOINT_URL_KMS: kms.endpoint, AWS_REGION: 'eu-central-1', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
});

afterAll(async () => {
  process.env = saved;
  await kms.close();
});

test('it learns the key\'s verifier key under the origin, from GetPublicKey alone', async () => {
  const learned = await learnVerifierKey({ KeyId: kms.keyId, Origin: ORIGIN, PinnedVerifierKeys: '' });
  expect(learned).toEqual({ VerifierKey: kms.verifierKey(ORIGIN), TrustedVerifierKeys: kms.verifierKey(ORIGIN) });
  expect(new Set(kms.requests.map((r) => r.target))).toEqual(new Set(['TrentService.GetPublicKey']));
});

test('a pinned list that names the key is what the functions trust (an older key beside it stays trusted)', async () => {
  const older = 'verify.example.org/ledger+00000000+AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const pinned = `${older},${kms.verifierKey(ORIGIN)}`;
  expect(await learnVerifierKey({ KeyId: kms.keyId, Origin: ORIGIN, PinnedVerifierKeys: pinned })).toEqual({ VerifierKey: kms.verifierKey(ORIGIN), TrustedVerifierKeys: pinned });
});

test('a pinned key that is not the KMS key\'s fails, naming both; so does the right key under another origin', async () => {
  const wrong = kms.verifierKey('other.example.org/ledger');
  await expect(learnVerifierKey({ KeyId: kms.keyId, Origin: ORIGIN, PinnedVerifierKeys: wrong })).rejects.toThrow(
    new RegExp(`ledgerVerifierKeys pins ${wrong.replace(/[+/]/g, '\\$&')}.*has the verifier key ${kms.verifierKey(ORIGIN).replace(/[+/]/g, '\\$&')}`),
  );
  await expect(learnVerifierKey({ KeyId: kms.keyId, Origin: '', PinnedVerifierKeys: '' })).rejects.toThrow(/ledger origin/);
});

async function cloudFormation() {
  const bodies: Array<Record<string, unknown>> = [];
  const server = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (c) => (body += c));
    request.on('end', () => {
      bodies.push({ method: request.method, ...JSON.parse(body) });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/response`, bodies, close: () => new Promise((r) => server.close(r)) };
}

test('the handler answers CloudFormation: SUCCESS with the attributes and the key as physical id, FAILED with the reason', async () => {
  const cfn = await cloudFormation();
  const request = { ResponseURL: cfn.url, StackId: 'stack', RequestId: 'r1', LogicalResourceId: 'VerifierKey' };
  try {
    await handler({ ...request, RequestType: 'Create', ResourceProperties: { KeyId: kms.keyId, Origin: ORIGIN } }, CONTEXT);
    await handler({ ...request, RequestType: 'Update', PhysicalResourceId: 'old', ResourceProperties: { KeyId: kms.keyId, Origin: ORIGIN, PinnedVerifierKeys: 'x.example/ledger+00000000+AQ==' } }, CONTEXT);
    await handler({ ...request, RequestType: 'Delete', PhysicalResourceId: 'old', ResourceProperties: {} }, CONTEXT);
    expect(cfn.bodies[0]).toMatchObject({ method: 'PUT', Status: 'SUCCESS', PhysicalResourceId: kms.verifierKey(ORIGIN), Data: { VerifierKey: kms.verifierKey(ORIGIN) }, RequestId: 'r1' });
    expect(cfn.bodies[1]).toMatchObject({ Status: 'FAILED', PhysicalResourceId: 'old', Reason: expect.stringContaining('ledgerVerifierKeys pins') });
    expect(cfn.bodies[2]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'old' });
  } finally {
    await cfn.close();
  }
});

// A port nobody listens on: the handler's own failure to answer is an error of the invocation (CloudFormation then times out).
test('an unreachable response URL fails the invocation', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  await expect(handler({ ResponseURL: `http://127.0.0.1:${port}/`, StackId: 's', RequestId: 'r', LogicalResourceId: 'l', RequestType: 'Delete', ResourceProperties: {} }, CONTEXT)).rejects.toThrow();
});
