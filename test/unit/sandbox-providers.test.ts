import * as z from 'zod';
import { ProviderRunRequest, ProviderRunResult } from '../../functions/contract/schemas/sandbox';
import { testClock } from '../../functions/domain/sandbox/clock';
import { JsonInputError } from '../../functions/domain/json-input';
import { contractRegistry } from '../../functions/contract/registry';
import type { ProviderRun } from '../../functions/domain/sandbox/provider-runs';
import { findProvider, providerRequest, runProvider, SANDBOX_PROVIDERS } from '../../functions/domain/sandbox/providers';
import { BODY_PLANS } from '../../functions/generated/bodies';

const run = (provider: ProviderRun, body: unknown) => runProvider(provider, providerRequest(provider, body));
const provider = (id: string) => findProvider(id)!;

function refusedField(p: ProviderRun, body: unknown): string {
  try {
    run(p, body);
  } catch (error) {
    if (error instanceof JsonInputError) return error.issues[0].field;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

describe('synthetic provider registry', () => {
  it('has the commerce source, identity verifier, wallet, payment processor and credential status registry, each id once', () => {
    const ids = SANDBOX_PROVIDERS.map((p) => p.providerId);
    expect(ids).toEqual(['commerce-source', 'identity-verifier', 'wallet', 'payment-processor', 'credential-status']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(SANDBOX_PROVIDERS.map((p) => [p.providerId, p] as const))('%s: its example request runs, validates and is deterministic', (_id, p) => {
    const result = run(p, p.exampleRequest);
    expect(ProviderRunResult.parse(result)).toEqual(result);
    expect(p.resultSchema.parse(result.result)).toEqual(result.result);
    expect(result).toMatchObject({ providerId: p.providerId, sandbox: { synthetic: true, productionAuthorityCreated: false, productionSideEffects: 'NONE' } });
    expect(run(p, structuredClone(p.exampleRequest))).toEqual(result);
  });

  it('every provider request schema is part of the published run request (so it reaches OpenAPI)', () => {
    const members = (ProviderRunRequest as unknown as z.ZodUnion<z.ZodType[]>).options;
    for (const p of SANDBOX_PROVIDERS) expect(members).toContain(p.requestSchema);
  });

  it('every provider checks its requests with the plan generated from its request schema', () => {
    for (const p of SANDBOX_PROVIDERS) expect([p.providerId, p.requestPlan]).toEqual([p.providerId, BODY_PLANS[contractRegistry.get(p.requestSchema)!.id]]);
  });

  it('every provider request schema converts to JSON Schema (published in providers.json)', () => {
    for (const p of SANDBOX_PROVIDERS) {
      const schema = z.toJSONSchema(p.requestSchema, { io: 'input' }) as { type: string; additionalProperties: boolean };
      expect(schema).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });

  it('equal requests in any key order give equal digests and results', () => {
    const p = provider('identity-verifier');
    const a = run(p, { subjectId: 's-123', evidence: ['EMAIL_CONTROL'], requestedAssurance: 'LOW' });
    const b = run(p, { requestedAssurance: 'LOW', evidence: ['EMAIL_CONTROL'], subjectId: 's-123' });
    expect(b).toEqual(a);
  });
});

describe('provider behaviour', () => {
  it('the payment processor can only answer NOT_AUTHORISED_TO_CAPTURE, for every operation', () => {
    const p = provider('payment-processor');
    for (const operation of ['AUTHORISE', 'CAPTURE', 'REFUND', 'VOID']) {
      const { result } = run(p, { operation, amountMinor: 100, currency: 'EUR', merchantReference: 'm-001' });
      expect(result).toMatchObject({ outcome: 'NOT_AUTHORISED_TO_CAPTURE', captured: false, fundsMoved: false, operation });
    }
  });

  it('the payment processor accepts no card or account data', () => {
    expect(refusedField(provider('payment-processor'), { operation: 'CAPTURE', amountMinor: 1, currency: 'EUR', merchantReference: 'm-001', cardNumber: '4111111111111111' })).toBe('cardNumber');
  });

  it('the identity verifier reaches the level of its strongest evidence and binds no identity', () => {
    const p = provider('identity-verifier');
    expect(run(p, { subjectId: 's-1', evidence: ['EMAIL_CONTROL', 'PHONE_CONTROL'] }).result).toMatchObject({ assuranceLevel: 'LOW', requestedAssurance: 'SUBSTANTIAL', outcome: 'BELOW_REQUESTED', identityBound: false });
    expect(run(p, { subjectId: 's-1', evidence: ['EMAIL_CONTROL', 'EUDI_PID'], requestedAssurance: 'HIGH' }).result).toMatchObject({ assuranceLevel: 'HIGH', outcome: 'MEETS_REQUESTED', decidedBy: 'EUDI_PID' });
    expect(refusedField(p, { subjectId: 's-1', evidence: ['EMAIL_CONTROL', 'EMAIL_CONTROL'] })).toBe('evidence');
    expect(refusedField(p, { subjectId: 's-1', evidence: [] })).toBe('evidence');
    expect(refusedField(p, { subjectId: 'Erika Mustermann', evidence: ['EMAIL_CONTROL'] })).toBe('subjectId');
  });

  it('the wallet discloses only requested claims it holds, unsigned', () => {
    const { result } = run(provider('wallet'), { credentialType: 'AGE_OVER_18', requestedClaims: ['ageOver18', 'birthDate'], nonce: 'nonce-123', audience: 'shop.example' });
    expect(result).toMatchObject({ disclosed: [{ claim: 'ageOver18', value: true }], withheld: ['birthDate'], signed: false, holderBinding: 'NONE_SYNTHETIC' });
    expect(refusedField(provider('wallet'), { credentialType: 'AGE_OVER_18', requestedClaims: ['ageOver18'], nonce: 'short', audience: 'shop.example' })).toBe('nonce');
  });

  it('the commerce source is stable per reference, forced by scenario, and observed at the evaluation instant', () => {
    const p = provider('commerce-source');
    const a = run(p, { sourceReference: 'ORD-77' });
    expect(run(p, { sourceReference: 'ORD-77' })).toEqual(a);
    expect(a.result).toMatchObject({ stateChosenBy: 'REFERENCE_DIGEST', observedAt: '2026-01-01T00:00:00.000Z' });
    const clock = testClock({ startAt: '2026-06-01T12:00:00Z', advanceMs: 1000 });
    expect(run(p, { sourceReference: 'ORD-77', scenario: 'RETURNED', clock }).result).toMatchObject({ state: 'RETURNED', stateChosenBy: 'SCENARIO', observedAt: '2026-06-01T12:00:01.000Z' });
    // Across many references, every state occurs: the choice really depends on the reference.
    const states = new Set(Array.from({ length: 200 }, (_, i) => (run(p, { sourceReference: `ORD-${i}` }).result as { state: string }).state));
    expect(states.size).toBe(6);
  });

  it('the credential status registry checks at the clock instant and names the failing field', () => {
    const p = provider('credential-status');
    const clock = testClock({ advanceMs: 60_000 });
    expect(run(p, { credentialId: 'cred-1', scenario: 'SUSPENDED', clock }).result).toMatchObject({ status: 'SUSPENDED', checkedAt: '2026-01-01T00:01:00.000Z' });
    expect(refusedField(p, { credentialId: 'cred-1', scenario: 'DELETED' })).toBe('scenario');
    expect(refusedField(p, { credentialId: 'cred-1', clock: { ...clock, now: '2030-01-01T00:00:00Z' } })).toBe('clock.now');
    expect(refusedField(p, {})).toBe('credentialId');
  });
});
