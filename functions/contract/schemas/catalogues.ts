import * as z from 'zod';
import { ADAPTER_DIRECTIONS } from '../adapters';
import { CHANNEL_READINESS } from '../channels';
import { LIVE_STATES } from '../operation';
import { STANDARD_MATURITIES } from '../standards';
import { component } from '../registry';
import { ErrorResponse, Instant } from './common';

/**
 * Response schemas of the developer documents under /developers/. Each document is built from
 * canonical sources (lib/publish) and parsed against its schema here before it is written, so
 * a document can never drift from its published shape.
 */

const LiveState = z.enum(LIVE_STATES);
const ChannelReadiness = z.enum(CHANNEL_READINESS);
const Maturity = z.enum(STANDARD_MATURITIES);
const Method = z.enum(['GET', 'POST']);
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const PathOnService = z.string().regex(/^\/[^\s]*$/).describe('Path (or path#fragment) below the service base address.');
const NoAuthority = z.literal(false);

const Channel = z.object({ key: z.string(), readiness: ChannelReadiness, description: z.string() });
const StandardSummary = z.object({ key: z.string(), standard: z.string(), maturity: Maturity });

// ---------------------------------------------------------------- catalogue.json

export const CatalogueEndpoint = component(
  'CatalogueEndpoint',
  z.object({
    method: Method,
    path: z.string(),
    liveState: LiveState,
    operationId: z.string(),
    summary: z.string(),
    tag: z.string(),
    servedBy: z.enum(['DOCUMENT', 'FUNCTION']).describe('DOCUMENT: a built document from the catalogue bucket; FUNCTION: a function.'),
    baseUrl: z.string().describe('The origin serving this endpoint (the verification or the general origin).'),
    contract: PathOnService.describe('Where the operation is described in /developers/openapi.json.'),
  }),
  'One endpoint of the contract table, with its liveState.',
);

const QuickstartStep = z.object({
  title: z.string(),
  method: Method,
  path: z.string().describe('Path template of the operation.'),
  url: PathOnService.describe('The step, ready to request against the base address, with demo references filled in.'),
  operationId: z.string(),
  body: z.unknown().optional().describe('JSON request body for POST steps.'),
  expectStatus: z.number().int(),
  lookAt: z.string().describe('What the answer shows.'),
});

export const DeveloperQuickstarts = component(
  'DeveloperQuickstarts',
  z.object({
    schemaVersion: z.literal('svc.developer-quickstarts.v1'),
    quickstarts: z.array(
      z.object({ id: z.string(), title: z.string(), goal: z.string(), steps: z.array(QuickstartStep).min(1) }),
    ),
  }),
  'Step-by-step first requests, each using demo references that exist.',
);

export const DeveloperCatalogue = component(
  'DeveloperCatalogue',
  z.object({
    schemaVersion: z.literal('svc.developer-catalogue.v1'),
    service: z.string(),
    contractVersion: z.string(),
    baseUrl: z.string().describe('The general origin, where the developer documents are served.'),
    origins: z.object({ verification: z.string(), general: z.string() }).describe('The two origins the contract declares (docs/deploy.md).'),
    scope: z.literal('PUBLIC_READ_ONLY'),
    productionAuthorityCreated: NoAuthority,
    liveStates: z.array(z.object({ liveState: LiveState, meaning: z.string() })),
    endpoints: z.array(CatalogueEndpoint),
    channels: z.array(Channel),
    offlineVerification: z.object({ claimsLiveLifecycleFreshness: z.literal(false), statement: z.string() }),
    standards: z.array(StandardSummary),
    documents: z.array(z.object({ path: z.string(), version: z.string().nullable().describe('The version the document declares (schemaVersion, openapi, asyncapi or specversion).'), title: z.string() })),
    quickstarts: DeveloperQuickstarts,
  }),
  'The current API, channel and standards catalogue, with the developer quickstarts.',
);

// ---------------------------------------------------------------- openapi.json / asyncapi.json

export const OpenApiDocument = component(
  'OpenApiDocument',
  z.object({ openapi: z.literal('3.1.0'), info: z.object({ title: z.string(), version: z.string() }).loose(), paths: z.record(z.string(), z.unknown()), components: z.object({}).loose() }).loose(),
  'The OpenAPI 3.1.0 contract of this service.',
);

export const AsyncApiDocument = component(
  'AsyncApiDocument',
  z
    .object({
      asyncapi: z.literal('3.0.0'),
      info: z.object({ title: z.string(), version: z.string() }).loose(),
      channels: z.record(z.string(), z.unknown()),
      operations: z.record(z.string(), z.unknown()),
      components: z.object({}).loose(),
    })
    .loose(),
  'The AsyncAPI 3.0 projection of the lifecycle and webhook event contracts.',
);

// ---------------------------------------------------------------- assets.json and assets/audit.json

export const ASSET_TYPES = [
  'API_OPERATION',
  'DEVELOPER_DOCUMENT',
  'PAGE',
  'SCHEMA',
  'EVENT_CONTRACT',
  'SANDBOX_PROVIDER',
  'STANDARD_PROFILE',
  'CHANNEL',
  'ADAPTER',
] as const;
export const ASSET_LIFECYCLES = ['LIVE', 'READY', 'SHADOW', 'GATED', 'TARGET', 'REFERENCE'] as const;
export const REUSE_SCOPES = ['PUBLIC_CONTRACT', 'SANDBOX_ONLY', 'INFORMATIVE'] as const;
export const COMMERCIAL_DISPOSITIONS = ['NON_COMMERCIAL', 'COMMERCIAL_EVIDENCE', 'SYNTHETIC_ONLY'] as const;
/**
 * The tags of the asset catalogue: each asset's operation tag and topic (its path's first
 * meaningful segment), and the kinds of asset (events, schemas, sandbox, providers, standards,
 * channels, adapters) with theirs. The catalogue is built from the contract table, so this set
 * changes only with it; the build refuses a catalogue with a tag not listed here, and a test holds
 * the list to exactly the tags the catalogue uses.
 */
export const ASSET_TAGS = [
  'activation-readiness', 'adapters', 'assets', 'asyncapi', 'catalogue', 'channels', 'commercial-proofs',
  'contexts', 'contracts', 'credentials', 'developer-catalogues', 'events', 'favicon-ico', 'favicon-svg',
  'health', 'human-surfaces', 'ingress', 'iot-event', 'landing-and-api-reference', 'ledger', 'lifecycle',
  'network-conformance', 'objects', 'offline-verify', 'openapi', 'portable-credentials', 'problem-details',
  'provider-certification', 'providers', 'reference', 'release-evidence', 'rest-api', 'root', 'sandbox',
  'schemas', 'standards', 'status-lists', 'studio', 'telemetry', 'trust-and-verification', 'trust-fabric',
  'trust-infrastructure', 'trust-receipt', 'verify', 'wallet', 'webhook', 'webhooks',
] as const;

export const AssetTypeFilter = z.enum(ASSET_TYPES).describe('Only assets of this type.');
export const AssetLifecycleFilter = z.enum(ASSET_LIFECYCLES).describe('Only assets in this lifecycle.');
export const ReuseScopeFilter = z.enum(REUSE_SCOPES).describe('Only assets with this reuse scope.');
export const CommercialDispositionFilter = z.enum(COMMERCIAL_DISPOSITIONS).describe('Only assets with this commercial disposition.');
export const AssetTagFilter = z.enum(ASSET_TAGS).describe('Only assets carrying this tag.');

export const Asset = component(
  'Asset',
  z.object({
    assetId: z.string(),
    assetType: z.enum(ASSET_TYPES),
    name: z.string(),
    summary: z.string(),
    lifecycle: z.enum(ASSET_LIFECYCLES),
    reuseScope: z.enum(REUSE_SCOPES),
    commercialDisposition: z.enum(COMMERCIAL_DISPOSITIONS),
    tags: z.array(z.enum(ASSET_TAGS)),
    location: PathOnService.describe('Where the asset is published.'),
    productionAuthority: NoAuthority,
  }),
  'A reusable asset or capability of the service.',
);

export const AssetCatalogue = component(
  'AssetCatalogue',
  z.object({
    schemaVersion: z.literal('svc.asset-catalogue.v1'),
    filters: z.object({
      assetType: z.enum(ASSET_TYPES).nullable(),
      lifecycle: z.enum(ASSET_LIFECYCLES).nullable(),
      reuseScope: z.enum(REUSE_SCOPES).nullable(),
      commercialDisposition: z.enum(COMMERCIAL_DISPOSITIONS).nullable(),
      tag: z.enum(ASSET_TAGS).nullable(),
    }),
    vocabularies: z.object({
      assetType: z.array(z.enum(ASSET_TYPES)),
      lifecycle: z.array(z.enum(ASSET_LIFECYCLES)),
      reuseScope: z.array(z.enum(REUSE_SCOPES)),
      commercialDisposition: z.array(z.enum(COMMERCIAL_DISPOSITIONS)),
      tag: z.array(z.enum(ASSET_TAGS)),
    }),
    total: z.number().int().min(0).describe('Assets in the whole catalogue.'),
    count: z.number().int().min(0).describe('Assets matching the filters.'),
    assets: z.array(Asset),
  }),
  'Reusable asset and capability catalogue; filters combine with AND.',
);

export const AssetAudit = component(
  'AssetAudit',
  z.object({
    schemaVersion: z.literal('svc.asset-audit.v1'),
    summary: z.object({
      assets: z.number().int().min(0),
      withGaps: z.number().int().min(0),
      gapsByCode: z.record(z.string(), z.number().int().min(0)),
    }),
    gapCodes: z.array(z.object({ code: z.string(), meaning: z.string() })),
    assets: z.array(
      z.object({
        assetId: z.string(),
        assetType: z.enum(ASSET_TYPES),
        packaging: z.array(z.string()).describe('How a developer obtains the asset.'),
        gaps: z.array(z.object({ code: z.string(), detail: z.string() })),
      }),
    ),
  }),
  'Reusable asset audit: how each asset is packaged and which packaging gaps remain.',
);

// ---------------------------------------------------------------- contracts.json

export const ContractCatalogue = component(
  'ContractCatalogue',
  z.object({
    schemaVersion: z.literal('svc.developer-contracts.v1'),
    contractVersion: z.string(),
    contracts: z.array(
      z.object({ contractId: z.string(), format: z.string(), path: PathOnService, sha256: Sha256, describes: z.string() }),
    ),
    schemas: z.array(
      z.object({ name: z.string(), schemaVersion: z.string().nullable(), contract: PathOnService, usedBy: z.array(z.string()) }),
    ),
    events: z.array(z.object({ type: z.string(), name: z.string(), contract: PathOnService })),
    problemCodes: z.array(z.object({ code: z.string(), status: z.number().int(), title: z.string(), type: z.string() })),
    extension: z.object({ scope: z.literal('PUBLIC_READ_ONLY'), productionAuthorityCreated: NoAuthority }).loose(),
  }),
  'Canonical developer contract catalogue: contract documents with digests, schemas, events and problem codes.',
);

// ---------------------------------------------------------------- sandbox

export const SandboxProviderCatalogue = component(
  'SandboxProviderCatalogue',
  z.object({
    schemaVersion: z.literal('svc.sandbox-providers.v1'),
    productionAuthority: NoAuthority,
    statement: z.string(),
    providers: z.array(
      z.object({
        providerId: z.string(),
        description: z.string(),
        deterministic: z.literal(true),
        synthetic: z.literal(true),
        runUrl: PathOnService,
        requestSchema: z.object({}).loose().describe('JSON Schema (draft 2020-12) of the run request body.'),
        exampleRequest: z.unknown(),
      }),
    ),
  }),
  'Deterministic synthetic providers with no production authority.',
);

export const SandboxExamples = component(
  'SandboxExamples',
  z.object({
    schemaVersion: z.literal('svc.sandbox-examples.v1'),
    boundaries: z.array(z.string()),
    examples: z.array(z.object({ name: z.string(), title: z.string(), method: Method, path: PathOnService, body: z.unknown(), lookAt: z.string() })),
    references: z.object({
      objects: z.array(z.string()),
      commercialProofs: z.array(z.string()),
      credentials: z.array(z.string()),
      statusLists: z.array(z.string()).optional().describe('Credential status list identifiers.'),
    }),
    tryIt: z.array(z.object({ method: Method, url: PathOnService, operationId: z.string() })).describe('Every read route with a demo reference filled in.'),
    ingress: z
      .object({
        statement: z.string(),
        examples: z.array(
          z.object({
            name: z.string(),
            title: z.string(),
            method: z.literal('POST'),
            url: PathOnService,
            sourceId: z.string().describe('The source whose key signs the body (Standard Webhooks).'),
            body: z.record(z.string(), z.unknown()).describe('The unsigned CloudEvents 1.0 event, sent as it is.'),
            expect: z.object({ reference: z.string(), path: PathOnService, field: z.string(), value: z.string() }).describe('What the read path shows once the event is integrated.'),
            fill: z
              .array(z.object({ field: z.string(), with: z.string() }))
              .optional()
              .describe('Only on a template (published before the records were known): the body fields to set before sending it, and to what. Without it, the example is derived from the records being served and is integrated as it is.'),
          }),
        ),
      })
      .describe('Signed events for the receivers: what to send, where, signed by which source.'),
  }),
  'Example payloads, the sandbox boundaries, and demo references that exist.',
);

export const ProviderCertificationKits = component(
  'ProviderCertificationKits',
  z.object({
    schemaVersion: z.literal('svc.provider-certification.v1'),
    liveProviderAcceptance: NoAuthority,
    statement: z.string(),
    kits: z.array(
      z.object({
        providerId: z.string(),
        kitVersion: z.literal('v1'),
        readiness: z.enum(['KIT_READY', 'KIT_INCOMPLETE']),
        liveProviderAcceptance: NoAuthority,
        vectors: z.array(
          z.object({
            name: z.string(),
            request: z.unknown(),
            expectStatus: z.number().int(),
            expectResponse: z.unknown().optional(),
          }),
        ),
        checks: z.array(z.object({ check: z.string(), passed: z.boolean() })),
      }),
    ),
  }),
  'Deterministic provider certification kits; readiness never grants live provider acceptance.',
);

// ---------------------------------------------------------------- adapters and network conformance

const AdapterCommon = {
  adapterId: z.string(),
  version: z.string(),
  title: z.string(),
  direction: z.enum(ADAPTER_DIRECTIONS),
  channel: z.string(),
  channelReadiness: ChannelReadiness,
  standards: z.array(StandardSummary),
  events: z.array(z.string()),
};

export const AdapterManifest = component(
  'AdapterManifest',
  z.object({
    schemaVersion: z.literal('svc.adapter-manifest.v2'),
    manifestVersion: z.literal(2),
    activatesAdapters: NoAuthority,
    statement: z.string(),
    adapters: z.array(z.object({ ...AdapterCommon, activation: z.literal('NOT_ACTIVATED'), gate: z.string() })),
  }),
  'Adapter manifest; the metadata activates nothing.',
);

export const NetworkConformance = component(
  'NetworkConformance',
  z.object({
    schemaVersion: z.literal('svc.network-conformance.v1'),
    productionAcceptance: NoAuthority,
    statement: z.string(),
    adapters: z.array(
      z.object({
        adapterId: z.string(),
        conformance: z.enum(['CONFORMS_TO_PUBLISHED_CONTRACTS', 'DOES_NOT_CONFORM']),
        productionAcceptance: NoAuthority,
        activationBoundary: z.string(),
        evidence: z.array(z.object({ check: z.string(), passed: z.boolean(), detail: z.string() })),
      }),
    ),
  }),
  'Network-adapter conformance evidence and activation boundaries; not production acceptance.',
);

// ---------------------------------------------------------------- telemetry

export const TelemetryReadiness = component(
  'TelemetryReadiness',
  z.object({
    schemaVersion: z.literal('svc.telemetry-readiness.v1'),
    statement: z.string(),
    hidden: z.object({ endpoints: z.literal(true), headers: z.literal(true), secrets: z.literal(true) }),
    signals: z.array(
      z.object({
        signal: z.enum(['LOGS', 'METRICS', 'TRACES']),
        readiness: ChannelReadiness,
        format: z.string(),
        fields: z.array(z.string()),
        correlation: z.string(),
      }),
    ),
    exports: z.array(z.object({ exporter: z.string(), readiness: ChannelReadiness, configuration: z.literal('HIDDEN') })),
    redaction: z.array(z.string()),
  }),
  'Telemetry export readiness; endpoints, headers and secrets are hidden.',
);

// ---------------------------------------------------------------- standards

export const StandardsCatalogue = component(
  'StandardsCatalogue',
  z.object({
    schemaVersion: z.literal('svc.standards-catalogue.v1'),
    statement: z.string(),
    maturities: z.array(z.object({ maturity: Maturity, meaning: z.string() })),
    standards: z.array(
      StandardSummary.extend({
        notes: z.string(),
        evidenceProfile: z.object({
          evidence: z.array(z.object({ kind: z.enum(['OPERATION', 'DOCUMENT', 'EVENT', 'ADAPTER']), ref: z.string(), present: z.boolean() })),
          evidenceComplete: z.boolean(),
        }),
        formalClaim: z.object({ status: z.literal('NOT_ASSERTED'), reason: z.string() }),
      }),
    ),
  }),
  'Standards maturity and evidence profiles; formal claims fail closed.',
);

const TargetProfile = z.object({
  profileId: z.string(),
  title: z.string(),
  targets: z.array(z.string()),
  standards: z.array(StandardSummary),
  status: z.enum(['TARGET', 'FOUNDATION_IMPLEMENTED', 'OUT_OF_SCOPE']),
  notes: z.string(),
});

export const EudiArf3Profiles = component(
  'EudiArf3Profiles',
  z.object({
    schemaVersion: z.literal('svc.standards-eudi-arf3.v1'),
    framework: z.object({ name: z.string(), version: z.literal('3.0.0') }),
    externalConformanceAsserted: NoAuthority,
    statement: z.string(),
    role: z.string(),
    profiles: z.array(TargetProfile),
    fcaf: z.object({
      name: z.string(),
      systemUnderTest: z.string(),
      applicability: z.string(),
      testCasesExecuted: z.literal(0),
      conformanceAsserted: NoAuthority,
    }),
  }),
  'EUDI ARF 3.0.0 and FCAF target profiles; no external conformance asserted.',
);

export const Iso20022Projection = component(
  'Iso20022Projection',
  z.object({
    schemaVersion: z.literal('svc.standards-iso20022.v1'),
    bankingAuthority: NoAuthority,
    paymentAuthority: NoAuthority,
    paymentAccountDataProjected: NoAuthority,
    messagesProduced: z.array(z.string()).max(0),
    statement: z.string(),
    targets: z.array(
      z.object({
        source: z.string().describe('Schema field of this contract (Component.field).'),
        sourceInContract: z.boolean(),
        projection: z.enum(['TARGET', 'NEVER']),
        messageDefinitions: z.array(z.string()),
        element: z.string().nullable(),
        notes: z.string(),
      }),
    ),
  }),
  'ISO 20022 semantic projection targets; no banking or payment authority.',
);

// ---------------------------------------------------------------- release evidence, problem details, events

export const ReleaseEvidence = component(
  'ReleaseEvidence',
  z.object({
    schemaVersion: z.literal('svc.release-evidence.v1'),
    deterministic: z.literal(true),
    commit: z.string().nullable(),
    sbom: z.object({ bomFormat: z.literal('CycloneDX'), specVersion: z.literal('1.6') }).loose().describe('CycloneDX 1.6 JSON BOM of the runtime dependencies.'),
    provenance: z
      .object({ _type: z.literal('https://in-toto.io/Statement/v1'), predicateType: z.literal('https://slsa.dev/provenance/v1'), subject: z.array(z.unknown()).min(1), predicate: z.object({}).loose() })
      .loose()
      .describe('in-toto Statement with an SLSA v1 provenance predicate for the published documents.'),
  }),
  'Deterministic CycloneDX/SLSA release-evidence projection.',
);

export const ProblemDetailsExample = ErrorResponse;

export const CloudEventExample = component(
  'CloudEventExample',
  z
    .object({
      specversion: z.literal('1.0'),
      id: z.string(),
      source: z.string(),
      type: z.string(),
      subject: z.string().optional(),
      time: Instant.optional(),
      datacontenttype: z.string().optional(),
      data: z.unknown(),
    })
    .loose(),
  'A lifecycle event as a CloudEvents 1.0 structured-mode JSON object.',
);
