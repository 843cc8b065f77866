import { createHash } from 'node:crypto';
import fc from 'fast-check';
import * as z from 'zod';
import { OFFLINE_VERIFICATION_STATEMENT } from '../../functions/contract/channels';
import { LivingObjectResolution } from '../../functions/contract/schemas/objects';
import { OfflineVerificationResult } from '../../functions/contract/schemas/sandbox';
import { SANDBOX_EXAMPLES } from '../../functions/domain/sandbox/examples';
import { offlineVerificationRequest } from '../../functions/generated/bodies';
import { parseJsonBody, JsonInputError } from '../../functions/domain/json-input';
import { verifyOfflineBundle } from '../../functions/domain/sandbox/offline';
import {
  EXAMPLE_LEDGER,
  EXAMPLE_LEDGER_CONTENTS,
  EXAMPLE_LEDGER_ORIGIN,
  EXAMPLE_LEDGER_SEED_TEXT,
  EXAMPLE_OBJECT_RESPONSE,
  EXAMPLE_PROVEN_LEAF,
  EXAMPLE_SERVED_AT,
} from '../../functions/domain/sandbox/offline-example';
import { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';

const NOW = '2026-03-02T20:00:00.000Z';
const INTEGRITY_CHECKS = ['evidence-format', 'record-version', 'canonical-hash', 'inclusion-proof', 'checkpoint-signature'];

/** The example ledger, rebuilt by the ledger code itself from its contents and the example key. */
function rebuildExampleLedger() {
  const seed = createHash('sha256').update(EXAMPLE_LEDGER_SEED_TEXT, 'utf8').digest();
  const signer = signerFromKey(formatSignerKey(EXAMPLE_LEDGER_ORIGIN, seed));
  const log = new AppendOnlyLog(signer);
  for (const { content, reference, version } of EXAMPLE_LEDGER_CONTENTS) log.add(content, { reference, version });
  return { log, signer, ledger: { verifierKey: signer.verifierKey, evidence: log.evidence(EXAMPLE_PROVEN_LEAF, EXAMPLE_LEDGER_CONTENTS[EXAMPLE_PROVEN_LEAF].version) } };
}

/** Verifies a bundle exactly as the route does: JSON text -> validation -> evaluation. */
const verify = (bundle: unknown) => verifyOfflineBundle(parseJsonBody(JSON.stringify(bundle), offlineVerificationRequest, { optional: false }));

const bundle = (overrides: Record<string, unknown> = {}) => ({
  response: EXAMPLE_OBJECT_RESPONSE,
  evidence: EXAMPLE_LEDGER.evidence,
  trustedKeys: [EXAMPLE_LEDGER.verifierKey],
  lastOnlineStatusCheckAt: EXAMPLE_SERVED_AT,
  now: NOW,
  ...overrides,
});

function refusedField(input: unknown): string {
  try {
    verify(input);
  } catch (error) {
    if (error instanceof JsonInputError) return error.issues[0].field;
    throw error;
  }
  throw new Error('expected the bundle to be refused');
}

describe('the example ledger', () => {
  it('is exactly what the ledger code builds from its contents with the example key (deterministic)', () => {
    const { ledger } = rebuildExampleLedger();
    if (JSON.stringify(ledger) !== JSON.stringify(EXAMPLE_LEDGER)) {
      // The ledger format changed: paste this into functions/domain/sandbox/offline-example.ts.
      console.log(`EXAMPLE_LEDGER must become:\n${JSON.stringify(ledger, null, 2)}`);
    }
    expect(ledger).toEqual(EXAMPLE_LEDGER);
  });

  it('proves the record of the example object response, which the resolver built and which carries the evidence', () => {
    expect(LivingObjectResolution.parse(EXAMPLE_OBJECT_RESPONSE)).toBeTruthy();
    expect(EXAMPLE_OBJECT_RESPONSE.object).toEqual(EXAMPLE_LEDGER_CONTENTS[EXAMPLE_PROVEN_LEAF].content);
    expect(EXAMPLE_OBJECT_RESPONSE.current.ledger).toEqual(EXAMPLE_LEDGER.evidence);
  });

  it('the evidence the response carries is used when the bundle gives none', () => {
    expect(verify(bundle({ evidence: undefined })).outcome).toBe('PASS');
    // An explicit `evidence` wins over the response's own.
    const tamperedOwn = { ...EXAMPLE_OBJECT_RESPONSE, current: { ...EXAMPLE_OBJECT_RESPONSE.current, ledger: { ...EXAMPLE_LEDGER.evidence, leafIndex: 0 } } };
    expect(verify(bundle({ evidence: undefined, response: tamperedOwn })).outcome).toBe('FAIL');
    expect(verify(bundle({ response: tamperedOwn })).outcome).toBe('PASS');
  });
});

describe('offline verification outcomes', () => {
  it('PASS: every integrity check passes and the status check is within the window', () => {
    const result = verify(bundle());
    expect(OfflineVerificationResult.parse(result)).toEqual(result);
    expect(result.outcome).toBe('PASS');
    expect(result.checks.map((c) => c.check)).toEqual([...INTEGRITY_CHECKS, 'status-check-age']);
    expect(result.checks.every((c) => c.result === 'PASS')).toBe(true);
    expect(result.subject).toEqual({ kind: 'OBJECT', reference: 'ORD-SBX-1001', version: 2 });
    expect(result.statusEvidence).toEqual({
      lastOnlineStatusCheckAt: EXAMPLE_SERVED_AT,
      ageSeconds: 6900,
      offlineValidityWindowSeconds: 86400,
      withinOfflineWindow: true,
      lifecycleStateAsOfEvidence: 'DELIVERED',
    });
    expect(result.statement).toBe(OFFLINE_VERIFICATION_STATEMENT);
  });

  it('HOLD: integrity verifies but the last status check is older than the window (boundary exact)', () => {
    const atWindow = verify(bundle({ lastOnlineStatusCheckAt: '2026-03-02T19:00:00Z', offlineValidityWindowSeconds: 3600 }));
    expect(atWindow.outcome).toBe('PASS');
    const beyond = verify(bundle({ lastOnlineStatusCheckAt: '2026-03-02T18:59:59Z', offlineValidityWindowSeconds: 3600 }));
    expect(beyond.outcome).toBe('HOLD');
    expect(beyond.checks.filter((c) => c.result !== 'PASS')).toEqual([expect.objectContaining({ check: 'status-check-age', result: 'HOLD' })]);
    expect(beyond.reason).toMatch(/check the status online/);
  });

  it('FAIL: a record changed after it was logged fails the canonical hash and the inclusion proof, whatever the status age', () => {
    const tampered = { ...EXAMPLE_OBJECT_RESPONSE, object: { ...EXAMPLE_OBJECT_RESPONSE.object, state: 'CANCELLED' } };
    const result = verify(bundle({ response: tampered, lastOnlineStatusCheckAt: '2026-02-01T00:00:00Z' }));
    expect(result.outcome).toBe('FAIL');
    const failed = result.checks.filter((c) => c.result === 'FAIL').map((c) => c.check);
    expect(failed).toEqual(['canonical-hash', 'inclusion-proof']);
    expect(result.reason).toMatch(/canonical-hash/);
  });

  it('FAIL: a checkpoint signed by a key the verifier does not trust', () => {
    const other = signerFromKey(formatSignerKey(EXAMPLE_LEDGER_ORIGIN, createHash('sha256').update('another key', 'utf8').digest()));
    const result = verify(bundle({ trustedKeys: [other.verifierKey] }));
    expect(result.outcome).toBe('FAIL');
    expect(result.checks.find((c) => c.check === 'checkpoint-signature')!.result).toBe('FAIL');
  });

  it('FAIL: evidence for another version than the one shown', () => {
    const { log } = rebuildExampleLedger();
    const result = verify(bundle({ evidence: log.evidence(0, 1) }));
    expect(result.outcome).toBe('FAIL');
    expect(result.checks.find((c) => c.check === 'record-version')!.result).toBe('FAIL');
  });

  it('FAIL: no evidence at all, or evidence that is not evidence', () => {
    const withoutLedger = { ...EXAMPLE_OBJECT_RESPONSE, current: { ...EXAMPLE_OBJECT_RESPONSE.current, ledger: null } };
    const none = verify(bundle({ evidence: undefined, response: withoutLedger }));
    expect(none.outcome).toBe('FAIL');
    expect(none.checks[0]).toMatchObject({ check: 'ledger-evidence-present', result: 'FAIL' });
    const junk = verify(bundle({ evidence: { version: 2, leafHash: 'nope' } }));
    expect(junk.outcome).toBe('FAIL');
    expect(junk.checks[0]).toMatchObject({ check: 'evidence-format', result: 'FAIL' });
  });

  it('FAIL for any single changed character of the evidence (property)', () => {
    const evidence = EXAMPLE_LEDGER.evidence;
    const fields = ['leafHash', 'inclusionProof', 'checkpoint'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.nat(), fc.nat(), (field, position, replacement) => {
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
        const change = (text: string) => {
          const i = position % text.length;
          const c = alphabet[replacement % alphabet.length] === text[i] ? alphabet[(replacement + 1) % alphabet.length] : alphabet[replacement % alphabet.length];
          return text.slice(0, i) + c + text.slice(i + 1);
        };
        const altered =
          field === 'inclusionProof'
            ? { ...evidence, inclusionProof: evidence.inclusionProof.map((h, i) => (i === position % evidence.inclusionProof.length ? change(h) : h)) }
            : { ...evidence, [field]: change(evidence[field]) };
        expect(verify(bundle({ evidence: altered })).outcome).toBe('FAIL');
      }),
      { numRuns: 150 },
    );
  });

  it('verifies a commercial proof response with the ledger evidence it carries', () => {
    const { log, signer } = rebuildExampleLedger();
    const proof = {
      reference: 'POP-SBX-4001',
      proofType: 'PROOF_OF_PURCHASE',
      title: 'Purchase SBX-4001 (sandbox)',
      issuer: 'Service orchestration',
      issuedAt: '2026-02-20T10:00:00.000Z',
      claims: { productCategory: 'HOUSEHOLD' },
      source: { system: 'SYNTHETIC_COMMERCE_PLATFORM', recordType: 'ORDER', digest: 'sha256:00' },
      freshnessSeconds: 3600,
      version: 1,
    };
    const { leafIndex } = log.add(proof, { reference: proof.reference, version: 1 });
    const response = {
      schemaVersion: 'svc.commercial-proof-evidence.v1',
      proof,
      verification: {
        status: 'CONFIRMED',
        proofVerified: true,
        currentSourceStatus: { state: 'DELIVERED', disposition: 'CURRENT', fresh: true, observedAt: '2026-03-02T19:00:00.000Z' },
        synchronization: {},
        ledger: { ...log.evidence(leafIndex, 1), integrity: { confirmed: true, reason: 'verified by the service', checks: [] } },
      },
      disclosure: { containsCustomerPii: false, containsPaymentAccountData: false },
    };
    const result = verify({ response, trustedKeys: [signer.verifierKey], lastOnlineStatusCheckAt: '2026-03-02T19:00:00Z', now: NOW });
    expect(result).toMatchObject({ outcome: 'PASS', subject: { kind: 'COMMERCIAL_PROOF', reference: 'POP-SBX-4001', version: 1 } });
    expect(result.statusEvidence.lifecycleStateAsOfEvidence).toBe('DELIVERED');
  });
});

describe('never a claim of live lifecycle freshness', () => {
  const words = /live|fresh/i;

  function* entries(value: unknown, path = ''): Generator<[string, unknown]> {
    if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* entries(v, `${path}[${i}]`);
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) {
      yield [`${path}.${k}`, v];
      yield* entries(v, `${path}.${k}`);
    }
  }

  it('no field of the result schema is named for liveness or freshness', () => {
    const schema = JSON.stringify(z.toJSONSchema(OfflineVerificationResult));
    const propertyNames = [...schema.matchAll(/"([A-Za-z]+)":\{/g)].map((m) => m[1]);
    expect(propertyNames.filter((name) => words.test(name))).toEqual([]);
  });

  it('no result (PASS, HOLD or FAIL; from a response that itself said fresh) has such a field or value, beyond the statement that it makes no such claim', () => {
    const results = [
      verify(bundle()),
      verify(bundle({ lastOnlineStatusCheckAt: '2026-02-01T00:00:00Z' })),
      verify(bundle({ trustedKeys: ['not+a+key'] })),
      ...SANDBOX_EXAMPLES.filter((e) => e.path.endsWith('/offline-verification')).map((e) => verify(e.body)),
    ];
    expect(new Set(results.map((r) => r.outcome))).toEqual(new Set(['PASS', 'HOLD', 'FAIL']));
    for (const result of results) {
      for (const [path, value] of entries(result)) {
        expect(path.split('.').pop()).not.toMatch(words);
        if (typeof value === 'string' && path !== '.statement') expect({ path, value }).toEqual({ path, value: expect.not.stringMatching(/\b(live|fresh|freshness|up to date|current status)\b/i) });
      }
      expect(result.statement).toBe(OFFLINE_VERIFICATION_STATEMENT);
      expect(result.statement).toMatch(/never claim live lifecycle freshness/);
    }
  });
});

describe('malformed bundles are refused (422 naming the field)', () => {
  it.each([
    ['a response of another kind', { response: { schemaVersion: 'svc.health.v1' } }, 'response.schemaVersion'],
    ['an object response without its object', { response: { schemaVersion: 'svc.living-object-resolution.v1' } }, 'response.object'],
    ['no trusted keys', { trustedKeys: [] }, 'trustedKeys'],
    ['a status check after the evaluation instant', { lastOnlineStatusCheckAt: '2026-03-03T00:00:00Z' }, 'lastOnlineStatusCheckAt'],
    ['a window below a minute', { offlineValidityWindowSeconds: 59 }, 'offlineValidityWindowSeconds'],
    ['an unknown field', { verdict: 'PASS' }, 'verdict'],
    ['a missing status check instant', { lastOnlineStatusCheckAt: undefined }, 'lastOnlineStatusCheckAt'],
  ])('%s', (_what, overrides, field) => {
    expect(refusedField(bundle(overrides))).toBe(field);
  });
});
