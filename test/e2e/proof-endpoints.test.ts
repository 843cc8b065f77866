import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ErrorResponse } from '../../functions/contract/schemas/common';
import { LedgerDescription } from '../../functions/contract/schemas/ledger';
import { LivingObjectResolution } from '../../functions/contract/schemas/objects';
import { CommercialProofEvidence } from '../../functions/contract/schemas/proofs';
import { DEMO_OBJECTS, DEMO_RESTRICTED_VALUES } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import type { LocalService } from '../../lib/local/service';
import { getJson, startTestService } from '../support/local';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
let service: LocalService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const get = (p: string) => getJson(`${service.url}${p}`);

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(ErrorResponse.safeParse(res.body).success).toBe(true);
  expect(res.body).toMatchObject({ status, code });
  expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+|node_modules/);
}

describe('GET /v1/commercial-proofs/{reference}', () => {
  it.each([
    [DEMO_PROOFS.current, 'CURRENT', 'CONFIRMED', true],
    [DEMO_PROOFS.modified, 'MODIFIED', 'REVIEW_REQUIRED', true],
    [DEMO_PROOFS.historicalOnly, 'HISTORICAL_ONLY', 'REVIEW_REQUIRED', true],
    [DEMO_PROOFS.stale, 'STALE', 'REVIEW_REQUIRED', true],
    [DEMO_PROOFS.unknown, 'UNKNOWN', 'REVIEW_REQUIRED', true],
    [DEMO_PROOFS.tampered, 'CURRENT', 'NOT_CONFIRMED', false],
  ])('%s: source %s, status %s, proofVerified %s', async (reference, disposition, status, proofVerified) => {
    const res = await get(`/v1/commercial-proofs/${reference}`);
    expect(res.status).toBe(200);
    const parsed = CommercialProofEvidence.strict().safeParse(res.body);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(res.body.proof.reference).toBe(reference);
    expect(res.body.verification).toMatchObject({ status, proofVerified, currentSourceStatus: { disposition } });
    expect(res.body.verification.verifyUrl).toBe(`${service.url}/verify?reference=${reference}`);
    expect(res.body.verification.trustReceiptUrl).toBe(`${service.url}/trust-receipt/${reference}`);
    expect(res.body.verification.ledger).toMatchObject({ format: 'svc.ledger-evidence.v1', integrity: { confirmed: proofVerified } });
    const body = JSON.stringify(res.body);
    for (const value of DEMO_RESTRICTED_VALUES) expect(body).not.toContain(value);
    expect(body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
  });

  it('says why the altered proof is not confirmed', async () => {
    const res = await get(`/v1/commercial-proofs/${DEMO_PROOFS.tampered}`);
    const failed = res.body.verification.ledger.integrity.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { name: string }) => c.name);
    expect(failed).toEqual(['canonical-hash', 'inclusion-proof']);
    expect(res.body.verification.ledger.integrity.reason).toMatch(/not the content that was logged/);
  });

  it('reports synchronization facts without endpoints or credentials', async () => {
    const res = await get(`/v1/commercial-proofs/${DEMO_PROOFS.stale}`);
    expect(res.body.verification.synchronization).toMatchObject({ sourceSystem: 'External commerce platform', freshnessWindowSeconds: 86400, synchronizations: 2 });
    expect(res.body.verification.synchronization.lagSeconds).toBeGreaterThan(86400);
    expect(res.body.verification.currentSourceStatus.fresh).toBe(false);
    const unknown = await get(`/v1/commercial-proofs/${DEMO_PROOFS.unknown}`);
    expect(unknown.body.verification.currentSourceStatus).toEqual({ state: 'UNKNOWN', disposition: 'UNKNOWN', fresh: false, observedAt: null });
  });

  it('409 for a reference that holds another kind of record', async () => {
    const res = await get(`/v1/commercial-proofs/${DEMO_OBJECTS.current}`);
    expectProblem(res, 409, 'NOT_A_COMMERCIAL_PROOF');
    expect(res.body.detail).toMatch(/living object/);
  });

  it('400 for an invalid reference, 404 for an unknown one', async () => {
    expectProblem(await get('/v1/commercial-proofs/ab'), 400, 'INVALID_REFERENCE');
    expectProblem(await get(`/v1/commercial-proofs/${'x'.repeat(181)}`), 400, 'INVALID_REFERENCE');
    expectProblem(await get('/v1/commercial-proofs/bad%20ref'), 400, 'INVALID_REFERENCE');
    expectProblem(await get('/v1/commercial-proofs/PRF-9999-0000'), 404, 'NOT_FOUND');
  });
});

describe('objects use the same verification', () => {
  it('ORD-2026-0001 is confirmed and carries its evidence; SUB-2026-0005 stays MODIFIED and unconfirmed', async () => {
    const current = await get(`/v1/objects/${DEMO_OBJECTS.current}`);
    expect(LivingObjectResolution.safeParse(current.body).success).toBe(true);
    expect(current.body.current).toMatchObject({ evidenceIntegrityConfirmed: true, overallDisposition: 'TRUSTED', ledger: { format: 'svc.ledger-evidence.v1' } });
    expect(current.body.presentations.customerAccountOrder.evidenceIntegrity).toBe('CONFIRMED');
    const modified = await get(`/v1/objects/${DEMO_OBJECTS.modified}`);
    expect(modified.body.current).toMatchObject({ disposition: 'MODIFIED', evidenceIntegrityConfirmed: false });
    expect(modified.body.presentations.customerAccountOrder.evidenceIntegrity).toBe('NOT_CONFIRMED');
  });
});

describe('GET /v1/ledger', () => {
  it('publishes the origin, the verifier key configured for the readers and the latest signed checkpoint', async () => {
    const res = await get('/v1/ledger');
    expect(res.status).toBe(200);
    expect(LedgerDescription.safeParse(res.body).success).toBe(true);
    expect(res.body.status).toBe('ACTIVE');
    expect(res.body.verifierKeys.map((k: { verifierKey: string }) => k.verifierKey)).toEqual([process.env.LEDGER_VERIFIER_KEYS]);
    expect(res.body.latestCheckpoint).toMatchObject({ origin: res.body.origin, signatureVerified: true });
    const proof = await get(`/v1/commercial-proofs/${DEMO_PROOFS.current}`);
    expect(proof.body.verification.ledger.checkpoint).toBe(res.body.latestCheckpoint.note);
  });
});

describe('npm run verify', () => {
  const tsx = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
  const verify = (args: string[], env: Record<string, string | undefined> = {}) =>
    run(process.execPath, [tsx, path.join(ROOT, 'bin/verify.ts'), ...args], { cwd: ROOT, env: { ...process.env, LEDGER_VERIFIER_KEYS: '', ...env } }).then(
      (out) => ({ code: 0, ...out }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'verify-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('verifies a proof URL with the key the service publishes, printing each check', async () => {
    const out = await verify([`${service.url}/v1/commercial-proofs/${DEMO_PROOFS.current}`]);
    expect(out.code).toBe(0);
    for (const check of ['canonical-hash', 'inclusion-proof', 'checkpoint-signature']) expect(out.stdout).toMatch(new RegExp(`PASS  ${check}`));
    expect(out.stdout).toMatch(/published by the service itself/);
    expect(out.stdout).toMatch(/VERIFIED/);
  });

  it('fails the altered proof and names the check', async () => {
    const out = await verify([`${service.url}/v1/commercial-proofs/${DEMO_PROOFS.tampered}`]);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/FAIL {2}canonical-hash/);
    expect(out.stdout).toMatch(/PASS {2}checkpoint-signature/);
    expect(out.stdout).toMatch(/NOT VERIFIED/);
  });

  it('verifies a saved object response offline with a pinned key, and refuses a wrong key', async () => {
    const saved = path.join(dir, 'order.json');
    await writeFile(saved, JSON.stringify((await get(`/v1/objects/${DEMO_OBJECTS.current}`)).body));
    const key = process.env.LEDGER_VERIFIER_KEYS!;
    expect((await verify([saved, '--key', key])).code).toBe(0);
    const wrongKey = 'localhost/public-trust-verification-service/dev-ledger+00000000+AWFDsjWZVdk6F0EmGKl7H8uWfr61Ct5osTmVg2h1N22j';
    const wrong = await verify([saved, '--key', wrongKey]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/FAIL {2}checkpoint-signature/);
    const noKey = await verify([saved]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/--key/);
  });

  it('says a MODIFIED object is not covered by its evidence', async () => {
    const out = await verify([`${service.url}/v1/objects/${DEMO_OBJECTS.modified}`]);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/FAIL {2}record-version/);
  });

  it('reports a problem response instead of verifying it', async () => {
    const out = await verify([`${service.url}/v1/commercial-proofs/${DEMO_OBJECTS.current}`]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/409/);
  });
});

describe('a store that stops answering', () => {
  it('503 for proofs and the ledger (runs last: it stops the store of this file)', async () => {
    await service.store!.close();
    const proof = await get(`/v1/commercial-proofs/${DEMO_PROOFS.current}`);
    expectProblem(proof, 503, 'DEPENDENCY_UNAVAILABLE');
    expect(proof.headers.get('retry-after')).toBe('1');
    expectProblem(await get('/v1/ledger'), 503, 'DEPENDENCY_UNAVAILABLE');
  });
});
