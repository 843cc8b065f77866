import * as z from 'zod';
import type { ProviderCertificationKits, SandboxExamples, SandboxProviderCatalogue } from '../../functions/contract/schemas/catalogues';
import { SANDBOX_RUN_PATH } from '../../functions/domain/assets';
import { OFFLINE_VERIFICATION_STATEMENT } from '../../functions/contract/channels';
import { demoPath, fillPath } from './demo-values';
import { buildIngressExamples, INGRESS_STATEMENT } from './ingress-examples';
import type { PublishSources, SandboxProviderSource } from './sources';

const NO_AUTHORITY =
  'Synthetic providers answer from the request alone: no clock, no randomness, no I/O. They hold no production authority and reach no real party.';

function runUrl(providerId: string): string {
  return fillPath(SANDBOX_RUN_PATH, { providerId });
}

function requestJsonSchema(provider: SandboxProviderSource): Record<string, unknown> {
  const { $schema: _s, ...schema } = z.toJSONSchema(provider.requestSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return schema;
}

export function buildSandboxProviders(sources: PublishSources): z.input<typeof SandboxProviderCatalogue> {
  return {
    schemaVersion: 'svc.sandbox-providers.v1',
    productionAuthority: false,
    statement: NO_AUTHORITY,
    providers: sources.providers.map((p) => ({
      providerId: p.providerId,
      description: p.boundary ? `${p.description} ${p.boundary}` : p.description,
      deterministic: true,
      synthetic: true,
      runUrl: runUrl(p.providerId),
      requestSchema: requestJsonSchema(p),
      exampleRequest: p.exampleRequest,
    })),
  };
}

export function buildSandboxExamples(sources: PublishSources): z.input<typeof SandboxExamples> {
  const providerIds = sources.providers.map((p) => p.providerId);
  const tryIt = sources.operations
    .filter((op) => op.method === 'GET')
    .flatMap((op) => {
      const url = demoPath(op, sources.demo, providerIds);
      return url === null ? [] : [{ method: 'GET' as const, url, operationId: op.operationId }];
    });
  return {
    schemaVersion: 'svc.sandbox-examples.v1',
    boundaries: [...sources.sandboxBoundaries, OFFLINE_VERIFICATION_STATEMENT],
    examples: sources.sandboxExamples.map((e) => ({ name: e.name, title: e.title, method: e.method, path: e.path, body: e.body, lookAt: e.lookAt })),
    references: {
      objects: [...sources.demo.objects],
      commercialProofs: [...sources.demo.commercialProofs],
      credentials: [...sources.demo.credentials],
      statusLists: [...sources.demo.statusLists],
    },
    tryIt,
    ingress: { statement: INGRESS_STATEMENT, examples: buildIngressExamples({ records: sources.ingressRecords, at: sources.ingressExamplesAt }) },
  };
}

/** Requests a conforming provider must refuse: not an object, and an empty object missing required fields. */
const REJECTED_VECTORS: Array<{ name: string; request: unknown }> = [
  { name: 'not-an-object', request: [] },
  { name: 'empty-object', request: {} },
];

/**
 * A certification kit per synthetic provider: request vectors with the exact response a
 * conforming implementation returns (computed by running the reference provider), and the
 * refusals it must make. A kit being ready certifies the kit, never a live provider.
 */
export function buildProviderCertification(sources: PublishSources, runProvider: (provider: SandboxProviderSource, request: unknown) => unknown): z.input<typeof ProviderCertificationKits> {
  return {
    schemaVersion: 'svc.provider-certification.v1',
    liveProviderAcceptance: false,
    statement:
      'Kits let a provider prove it reproduces the reference behaviour deterministically. Kit readiness grants no live provider acceptance: acceptance is an external, gated decision.',
    kits: sources.providers.map((provider) => {
      const parsed = provider.requestSchema.safeParse(provider.exampleRequest);
      const rejected = REJECTED_VECTORS.filter((v) => !provider.requestSchema.safeParse(v.request).success);
      const vectors = [
        ...(parsed.success ? [{ name: 'example', request: provider.exampleRequest, expectStatus: 200, expectResponse: runProvider(provider, parsed.data) }] : []),
        ...rejected.map((v) => ({ name: v.name, request: v.request, expectStatus: 422 })),
      ];
      const checks = [
        { check: 'example request satisfies the request schema', passed: parsed.success },
        { check: 'reference run is deterministic (two runs, equal results)', passed: parsed.success && JSON.stringify(runProvider(provider, parsed.data)) === JSON.stringify(runProvider(provider, parsed.data)) },
        { check: 'kit includes at least one refusal vector', passed: rejected.length > 0 },
      ];
      return {
        providerId: provider.providerId,
        kitVersion: 'v1' as const,
        readiness: checks.every((c) => c.passed) ? ('KIT_READY' as const) : ('KIT_INCOMPLETE' as const),
        liveProviderAcceptance: false as const,
        vectors,
        checks,
      };
    }),
  };
}
