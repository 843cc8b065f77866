import type { z } from 'zod';
import { CHANNELS, OFFLINE_VERIFICATION_STATEMENT } from '../../functions/contract/channels';
import { LIVE_STATE_MEANINGS, type LiveState, type Operation } from '../../functions/contract/operation';
import type { DeveloperCatalogue, DeveloperQuickstarts } from '../../functions/contract/schemas/catalogues';
import { CONTRACT_VERSION, SERVICE_NAME } from '../../functions/contract/service';
import { STANDARDS } from '../../functions/contract/standards';
import { openApiPointer, SANDBOX_RUN_PATH } from '../../functions/domain/assets';
import { fillPath } from './demo-values';
import { declaredVersion } from './versions';
import type { PublishSources } from './sources';
import { localOrigins, originsOfPath, originUrl, type Origins } from '../contract/origins';

type Catalogue = z.input<typeof DeveloperCatalogue>;
type Quickstarts = z.input<typeof DeveloperQuickstarts>;
type Step = Quickstarts['quickstarts'][number]['steps'][number];

interface StepPlan {
  title: string;
  method: 'GET' | 'POST';
  path: string;
  values?: Record<string, string | undefined>;
  body?: unknown;
  expectStatus: number;
  lookAt: string;
}

interface QuickstartPlan {
  id: string;
  title: string;
  goal: string;
  steps: StepPlan[];
}

function quickstartPlans(sources: PublishSources): QuickstartPlan[] {
  const { demo, providers, sandboxExamples } = sources;
  const provider = providers[0];
  const testClock = sandboxExamples.find((e) => e.path === '/developers/sandbox/test-clock');
  return [
    {
      id: 'check-a-living-object',
      title: 'Check what is true about a living object right now',
      goal: 'Resolve a reference to its current state, freshness and evidence integrity, then open its human-readable receipt.',
      steps: [
        {
          title: 'Resolve the object',
          method: 'GET',
          path: '/v1/objects/{reference}',
          values: { reference: demo.objects[0] },
          expectStatus: 200,
          lookAt: 'current.overallDisposition, current.fresh and current.evidenceIntegrityConfirmed; disclosure says no personal or payment data.',
        },
        {
          title: 'Read the same object on a page',
          method: 'GET',
          path: '/trust-receipt/{reference}',
          values: { reference: demo.objects[0] },
          expectStatus: 200,
          lookAt: 'The lifecycle-aware trust receipt a QR code opens.',
        },
      ],
    },
    {
      id: 'check-a-commercial-proof',
      title: 'Check a commercial proof against its source',
      goal: 'See whether the commerce source behind a proof is still the one the proof describes.',
      steps: [
        {
          title: 'Read the proof evidence',
          method: 'GET',
          path: '/v1/commercial-proofs/{reference}',
          values: { reference: demo.commercialProofs[0] },
          expectStatus: 200,
          lookAt: 'verification.currentSourceStatus.disposition (CURRENT, HISTORICAL_ONLY, MODIFIED, STALE or UNKNOWN); ledger evidence proves integrity only.',
        },
      ],
    },
    {
      id: 'verify-a-credential',
      title: 'Verify a credential',
      goal: 'Read the public verification state of a credential by its claim identifier.',
      steps: [
        {
          title: 'Verify the credential',
          method: 'GET',
          path: '/v1/credentials/verify/{claimId}',
          values: { claimId: demo.credentials[0] },
          expectStatus: 200,
          lookAt: 'The verification status and how fresh it is.',
        },
      ],
    },
    {
      id: 'read-the-contracts',
      title: 'Read the published contracts',
      goal: 'Generate a client from the OpenAPI contract and subscribe-side code from the AsyncAPI contract.',
      steps: [
        { title: 'The API catalogue', method: 'GET', path: '/developers/catalogue.json', expectStatus: 200, lookAt: 'endpoints[].liveState: only LIVE endpoints are promised now.' },
        { title: 'The OpenAPI 3.1 contract', method: 'GET', path: '/developers/openapi.json', expectStatus: 200, lookAt: 'x-svc: scope PUBLIC_READ_ONLY, productionAuthorityCreated false.' },
        { title: 'The event contracts', method: 'GET', path: '/developers/asyncapi.json', expectStatus: 200, lookAt: 'Each message is a CloudEvent whose payload carries no personal data.' },
        { title: 'One event', method: 'GET', path: '/developers/events/example.json', expectStatus: 200, lookAt: 'specversion 1.0 and the data of an object state change.' },
      ],
    },
    {
      id: 'try-the-sandbox',
      title: 'Try the deterministic sandbox',
      goal: 'Run synthetic providers and the test clock: the same input always gives the same output, and nothing reaches production.',
      steps: [
        { title: 'Examples and boundaries', method: 'GET', path: '/developers/sandbox/examples.json', expectStatus: 200, lookAt: 'references lists demo records you can read right away.' },
        {
          title: 'Advance the test clock',
          method: 'POST',
          path: '/developers/sandbox/test-clock',
          body: testClock?.body ?? {},
          expectStatus: 200,
          lookAt: 'The deterministic clock result.',
        },
        {
          title: `Run the ${provider?.providerId ?? ''} provider`,
          method: 'POST',
          path: SANDBOX_RUN_PATH,
          values: { providerId: provider?.providerId },
          body: provider?.exampleRequest,
          expectStatus: 200,
          lookAt: 'A synthetic result with sandbox.productionAuthorityCreated false.',
        },
      ],
    },
  ];
}

/**
 * A quickstart is published only when every step's operation is in the contract table and
 * every reference it needs exists in the demo data, so no step can lead to a dead end.
 */
export function buildQuickstarts(sources: PublishSources): Quickstarts {
  const find = (method: string, path: string) => sources.operations.find((op) => op.method === method && op.path === path);
  const quickstarts: Quickstarts['quickstarts'] = [];
  for (const plan of quickstartPlans(sources)) {
    const steps: Step[] = [];
    for (const step of plan.steps) {
      const op = find(step.method, step.path);
      const values = step.values ?? {};
      if (!op || Object.values(values).some((v) => v === undefined)) break;
      steps.push({
        title: step.title,
        method: step.method,
        path: step.path,
        url: fillPath(step.path, values as Record<string, string>),
        operationId: op.operationId,
        ...(step.method === 'POST' ? { body: step.body } : {}),
        expectStatus: step.expectStatus,
        lookAt: step.lookAt,
      });
    }
    if (steps.length === plan.steps.length) quickstarts.push({ id: plan.id, title: plan.title, goal: plan.goal, steps });
  }
  return { schemaVersion: 'svc.developer-quickstarts.v1', quickstarts };
}

function servedBy(op: Operation): 'DOCUMENT' | 'FUNCTION' {
  return op.integration.kind === 'lambda' ? 'FUNCTION' : 'DOCUMENT';
}

/**
 * `baseUrl` is the general origin (where this catalogue and every developer document are served);
 * `origins` names both, and each endpoint carries the base URL of its own origin.
 */
export function buildDeveloperCatalogue(sources: PublishSources, origins: Origins = localOrigins()): Catalogue {
  return {
    schemaVersion: 'svc.developer-catalogue.v1',
    service: SERVICE_NAME,
    contractVersion: CONTRACT_VERSION,
    baseUrl: origins.generalOrigin,
    origins: { verification: origins.verificationOrigin, general: origins.generalOrigin },
    scope: 'PUBLIC_READ_ONLY',
    productionAuthorityCreated: false,
    liveStates: Object.entries(LIVE_STATE_MEANINGS).map(([liveState, meaning]) => ({ liveState: liveState as LiveState, meaning })),
    endpoints: sources.operations.map((op) => ({
      method: op.method,
      path: op.path,
      liveState: op.liveState,
      operationId: op.operationId,
      summary: op.summary,
      tag: op.tag,
      servedBy: servedBy(op),
      baseUrl: originUrl(origins, originsOfPath(op.path)[0]),
      contract: openApiPointer(op),
    })),
    channels: CHANNELS.map((c) => ({ key: c.key, readiness: c.readiness, description: c.description })),
    offlineVerification: { claimsLiveLifecycleFreshness: false, statement: OFFLINE_VERIFICATION_STATEMENT },
    standards: STANDARDS.map((s) => ({ key: s.key, standard: s.standard, maturity: s.maturity })),
    documents: sources.operations
      .filter((op) => op.method === 'GET' && op.path.startsWith('/developers/'))
      .map((op) => ({ path: op.path, version: declaredVersion(op.response.schema), title: op.summary })),
    quickstarts: buildQuickstarts(sources),
  };
}
