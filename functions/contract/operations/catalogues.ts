import type { z } from 'zod';
import { defineOperations, type LiveState, type Operation } from '../operation';
import { documentOperation } from './document';
import {
  AdapterManifest,
  AssetAudit,
  AssetCatalogue,
  AssetLifecycleFilter,
  AssetTagFilter,
  AssetTypeFilter,
  AsyncApiDocument,
  CloudEventExample,
  CommercialDispositionFilter,
  ContractCatalogue,
  DeveloperCatalogue,
  EudiArf3Profiles,
  Iso20022Projection,
  NetworkConformance,
  OpenApiDocument,
  ProblemDetailsExample,
  ProviderCertificationKits,
  ReleaseEvidence,
  ReuseScopeFilter,
  SandboxExamples,
  SandboxProviderCatalogue,
  StandardsCatalogue,
  TelemetryReadiness,
} from '../schemas/catalogues';

const TAG = 'Developer catalogues';

const document = (operationId: string, path: string, summary: string, schema: z.ZodType, liveState: LiveState = 'LIVE'): Operation =>
  documentOperation(TAG, operationId, path, summary, schema, { liveState });

export const cataloguesOperations = defineOperations([
  document('getDeveloperCatalogue', '/developers/catalogue.json', 'Current API, channel and standards catalogue, with the developer quickstarts', DeveloperCatalogue),
  document('getOpenApiContract', '/developers/openapi.json', 'The read-only OpenAPI 3.1 contract', OpenApiDocument),
  {
    operationId: 'listAssets',
    method: 'GET',
    path: '/developers/assets.json',
    tag: TAG,
    summary: 'Reusable asset and capability catalogue, optionally filtered',
    description:
      'Filters combine with AND; an absent filter matches everything. An unknown filter value or an unknown query parameter is refused with 400.',
    liveState: 'LIVE',
    queryParams: {
      assetType: AssetTypeFilter,
      lifecycle: AssetLifecycleFilter,
      reuseScope: ReuseScopeFilter,
      commercialDisposition: CommercialDispositionFilter,
      tag: AssetTagFilter,
    },
    response: { schema: AssetCatalogue },
    errors: [400],
    caching: ['document'],
    integration: { kind: 'lambda', entry: 'functions/handlers/list-assets.ts', access: 'none' },
  },
  document(
    'getProviderCertificationKits',
    '/developers/provider-certification/v1.json',
    'Deterministic provider certification kits; readiness does not grant live provider acceptance',
    ProviderCertificationKits,
  ),
  document('getAssetAudit', '/developers/assets/audit.json', 'Reusable asset audit and packaging gaps', AssetAudit),
  document('getContractCatalogue', '/developers/contracts.json', 'Canonical developer contract catalogue', ContractCatalogue),
  document('getAsyncApiContract', '/developers/asyncapi.json', 'AsyncAPI 3 projection generated from the canonical event contracts', AsyncApiDocument),
  document(
    'getNetworkConformance',
    '/developers/network-conformance.json',
    'Network-adapter conformance evidence and activation boundaries; not production acceptance',
    NetworkConformance,
  ),
  document('listSandboxProviders', '/developers/sandbox/providers.json', 'Deterministic synthetic providers with no production authority', SandboxProviderCatalogue),
  document('getTelemetryReadiness', '/developers/telemetry/readiness.json', 'Telemetry export readiness; endpoints, headers and secrets are hidden', TelemetryReadiness),
  document('getStandardsCatalogue', '/developers/standards/catalogue.json', 'Standards maturity and evidence profiles; formal claims fail closed', StandardsCatalogue),
  document('getEudiArf3Profiles', '/developers/standards/eudi-arf3.json', 'EUDI ARF 3.0.0 and FCAF target profiles; no external conformance asserted', EudiArf3Profiles),
  document('getIso20022Projection', '/developers/standards/iso20022.json', 'ISO 20022 semantic projection targets; no banking or payment authority', Iso20022Projection),
  document('getReleaseEvidenceExample', '/developers/release-evidence/example.json', 'Deterministic CycloneDX/SLSA release-evidence projection', ReleaseEvidence),
  document('getProblemDetailsExample', '/developers/problem-details/example.json', 'An ErrorResponse-shaped example (served with 200)', ProblemDetailsExample),
  document('getEventExample', '/developers/events/example.json', 'Deterministic CloudEvents-compatible example', CloudEventExample),
  document('getAdapterManifest', '/developers/adapters/v2.json', 'Adapter manifest; the metadata does not activate adapters', AdapterManifest, 'READY'),
  document('getSandboxExamples', '/developers/sandbox/examples.json', 'Example payloads, sandbox boundaries and demo references that exist', SandboxExamples),
]);
