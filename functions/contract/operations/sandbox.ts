import * as z from 'zod';
import { defineOperations } from '../operation';
import {
  OfflineVerificationRequest,
  OfflineVerificationResult,
  PROVIDER_ID_PATTERN,
  ProviderRunRequest,
  ProviderRunResult,
  TestClock,
  TestClockRequest,
  TrustPolicyDecision,
  TrustPolicyRequest,
} from '../schemas/sandbox';

/**
 * The sandbox: deterministic POST operations with no production side effects. Every one runs
 * with access 'none': its function is given no table, no bucket and no secret, so "no side
 * effect" is enforced by the infrastructure, not only promised by the code.
 */
const TAG = 'Sandbox';
const NO_SIDE_EFFECTS =
  'Deterministic: no wall clock, no randomness, no writes; the same request always gives the same response. ' +
  'The body is read as JSON (at most 64 KiB; larger bodies get 413).';

export const ProviderId = z
  .string()
  .max(64)
  .regex(new RegExp(PROVIDER_ID_PATTERN))
  .describe('A registered synthetic provider (see /developers/sandbox/providers.json); any other value is 404.');

export const sandboxOperations = defineOperations([
  {
    operationId: 'runTestClock',
    method: 'POST',
    path: '/developers/sandbox/test-clock',
    tag: TAG,
    summary: 'Deterministic test clock: an instant advanced by a number of milliseconds',
    description: `${NO_SIDE_EFFECTS} An empty body is the same as {}. A missing startAt uses the fixed instant 2026-01-01T00:00:00.000Z.`,
    liveState: 'LIVE',
    requestBody: { schema: TestClockRequest, required: false },
    response: { schema: TestClock },
    errors: [413, 422],
    integration: { kind: 'lambda', entry: 'functions/handlers/sandbox-test-clock.ts', access: 'none' },
  },
  {
    operationId: 'runSandboxProvider',
    method: 'POST',
    path: '/developers/sandbox/providers/{providerId}/run',
    tag: TAG,
    summary: 'Run a deterministic synthetic provider (no production authority)',
    description: `${NO_SIDE_EFFECTS} The body is validated against the schema of the provider named in the path.`,
    liveState: 'LIVE',
    pathParams: { providerId: ProviderId },
    requestBody: { schema: ProviderRunRequest, required: true },
    response: { schema: ProviderRunResult },
    errors: [404, 413, 422],
    integration: { kind: 'lambda', entry: 'functions/handlers/sandbox-run-provider.ts', access: 'none' },
  },
  {
    operationId: 'evaluateTrustPolicy',
    method: 'POST',
    path: '/developers/sandbox/trust-policy',
    tag: TAG,
    summary: 'Evaluate a trust policy (SHADOW): ALLOW, DENY or STEP_UP with the deciding rule and reasons',
    description: `${NO_SIDE_EFFECTS} SHADOW: the decision is computed and returned, never enforced.`,
    liveState: 'SHADOW',
    requestBody: { schema: TrustPolicyRequest, required: true },
    response: { schema: TrustPolicyDecision },
    errors: [413, 422],
    integration: { kind: 'lambda', entry: 'functions/handlers/sandbox-trust-policy.ts', access: 'none' },
  },
  {
    operationId: 'verifyOffline',
    method: 'POST',
    path: '/developers/sandbox/offline-verification',
    tag: TAG,
    summary: 'Assess a verification bundle offline (SHADOW): PASS, HOLD or FAIL, one result per check',
    description: `${NO_SIDE_EFFECTS} SHADOW. The result never claims live lifecycle freshness.`,
    liveState: 'SHADOW',
    requestBody: { schema: OfflineVerificationRequest, required: true },
    response: { schema: OfflineVerificationResult },
    errors: [413, 422],
    integration: { kind: 'lambda', entry: 'functions/handlers/sandbox-offline-verification.ts', access: 'none' },
  },
]);
