import { execFileSync } from 'node:child_process';
import { TRUST_CONTEXT_PATH } from '../../functions/contract/credential-context';
import { createHash } from 'node:crypto';
import path from 'node:path';
import * as z from 'zod';
import { DEMO_RESTRICTED_VALUES, demoDocument } from '../../fixtures/demo';
import { validateRecords } from '../../lib/loader/load';
import { DEMO_CREDENTIAL_RESTRICTED_VALUES } from '../../fixtures/demo-credentials';
import { ADAPTERS, type AdapterEntry } from '../../functions/contract/adapters';
import { CHANNELS } from '../../functions/contract/channels';
import { EVENT_CONTRACTS } from '../../functions/contract/events';
import type { Operation } from '../../functions/contract/operation';
import { contractRegistry } from '../../functions/contract/registry';
import { ErrorResponse } from '../../functions/contract/schemas/common';
import { STANDARDS } from '../../functions/contract/standards';
import { assetCatalogue } from '../../functions/domain/assets';
import { runProvider, SANDBOX_PROVIDERS } from '../../functions/domain/sandbox/providers';
import { buildAdapterManifest, buildNetworkConformance } from '../../lib/publish/adapters';
import { buildAssetAudit, publishedAssets } from '../../lib/publish/assets';
import { buildDeveloperCatalogue, buildQuickstarts } from '../../lib/publish/catalogue';
import { examplePayloads } from '../../lib/publish/events';
import { buildProblemDetailsExample } from '../../lib/publish/problem-details';
import { runtimePackages } from '../../lib/publish/release-evidence';
import { buildProviderCertification } from '../../lib/publish/sandbox';
import { NEUTRAL_ORIGINS } from '../../lib/contract/origins';
import { buildOriginDocuments, buildSite } from '../../lib/publish/site';
import { canonicalSources, releaseIdentity, type PublishSources } from '../../lib/publish/sources';
import { buildIso20022, buildStandardsCatalogue } from '../../lib/publish/standards';
import { buildTelemetryReadiness } from '../../lib/publish/telemetry';

const ROOT = path.resolve(__dirname, '../..');
const FIXED_RELEASE = { commit: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', committedAt: '2001-02-03T04:05:06Z' };
const sources = (): PublishSources => ({ ...canonicalSources(), release: FIXED_RELEASE });
const json = (site: Map<string, string>, key: string) => JSON.parse(site.get(key)!);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the canonical tables say what the specification says', () => {
  test('eleven standards, each with its key, standard and maturity', () => {
    expect(STANDARDS.map((s) => [s.key, s.maturity])).toEqual([
      ['OIDC_FEDERATION', 'IMPLEMENTATION_READY'],
      ['OAUTH_RESOURCE_AUTHORIZATION', 'TARGET_ALIGNMENT'],
      ['FIDO_WEBAUTHN_AUTHENTICATION', 'TARGET_ALIGNMENT'],
      ['SCIM_PROVISIONING', 'TARGET_ALIGNMENT'],
      ['W3C_VC_2_CREDENTIAL', 'IMPLEMENTATION_READY'],
      ['OPENID4VCI_ISSUANCE', 'IMPLEMENTATION_READY'],
      ['OPENID4VP_PRESENTATION', 'IMPLEMENTATION_READY'],
      ['EUDI_WALLET_INTEROP', 'REFERENCE'],
      ['OPEN_BADGES_3_PRESENTATION', 'REFERENCE'],
      ['EPCIS_EVENT_INTEROP', 'IMPLEMENTATION_READY'],
      ['UDI_REGULATORY_REFERENCE', 'IMPLEMENTATION_READY'],
    ]);
    expect(STANDARDS.find((s) => s.key === 'OPENID4VCI_ISSUANCE')!.notes).toMatch(/live authorization and credential endpoints are gated/i);
    expect(STANDARDS.find((s) => s.key === 'OPENID4VP_PRESENTATION')!.notes).toMatch(/live wallet transport is gated/i);
  });

  test('eleven channels, each with its readiness', () => {
    expect(Object.fromEntries(CHANNELS.map((c) => [c.key, c.readiness]))).toEqual({
      WEB_DESKTOP: 'ACTIVE',
      WEB_MOBILE: 'ACTIVE',
      TABLET: 'READY',
      QR_SCAN: 'ACTIVE',
      PWA: 'READY',
      WALLET: 'READY',
      REST_API: 'ACTIVE',
      WEBHOOK: 'READY',
      IOT_EVENT: 'READY',
      OFFLINE_VERIFY: 'READY',
      LOW_BANDWIDTH_SYNC: 'READY',
    });
  });
});

describe('the build', () => {
  test('is deterministic: the same sources give the same bytes', () => {
    expect([...buildSite(sources())]).toEqual([...buildSite(sources())]);
  });

  test('no document carries the clock of the build machine', () => {
    const today = new Date().toISOString().slice(0, 10);
    for (const [key, bytes] of buildSite(sources())) expect(`${key}: ${bytes.includes(today)}`).toBe(`${key}: false`);
  });

  test('takes the commit and its instant from the environment (CI) or from git, never from the clock', () => {
    expect(releaseIdentity({ RELEASE_COMMIT: FIXED_RELEASE.commit, SOURCE_DATE_EPOCH: '981173106' })).toEqual(FIXED_RELEASE);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const fromGit = releaseIdentity({});
    expect(fromGit.commit).toBe(head);
    expect(fromGit.committedAt).toBe(new Date(execFileSync('git', ['show', '-s', '--format=%cI', head], { cwd: ROOT, encoding: 'utf8' }).trim()).toISOString().replace('.000Z', 'Z'));
  });

  test("writes one document per GET /developers/ JSON operation (and the service's JSON-LD context) and one file per static-file operation, each satisfying its response schema", () => {
    const site = buildSite(sources());
    const operations = canonicalSources().operations;
    const routes = operations.filter(
      (op) => op.method === 'GET' && (op.path.startsWith('/developers/') || op.path === TRUST_CONTEXT_PATH) && (op.response.mediaType ?? 'application/json') === 'application/json',
    );
    const files = operations.filter((op) => op.integration.kind === 'document' && (op.response.mediaType ?? 'application/json') !== 'application/json');
    const fileKeys = files.map((op) => (op.integration.kind === 'document' ? op.integration.key : ''));
    expect([...site.keys()].sort()).toEqual([...new Set([...routes.map((op) => op.path.slice(1)), ...fileKeys])].sort());
    for (const op of routes) expect(`${op.path} ${op.response.schema.safeParse(json(site, op.path.slice(1))).success}`).toBe(`${op.path} true`);
    for (const op of files) expect(`${op.path} ${op.response.schema.safeParse(site.get(fileKeys[files.indexOf(op)])).success}`).toBe(`${op.path} true`);
  });

  test('fails when a document route has no builder', () => {
    const extra: Operation = {
      operationId: 'getOrphan',
      method: 'GET',
      // Under a topic the catalogue knows (its tags are the contract's ASSET_TAGS), so that the missing builder is what fails.
      path: '/developers/telemetry/orphan.json',
      tag: 'Developer catalogues',
      summary: 'orphan',
      liveState: 'LIVE',
      response: { schema: z.object({}) },
      errors: [],
      integration: { kind: 'document', key: 'developers/telemetry/orphan.json' },
    };
    expect(() => buildSite({ ...sources(), operations: [...sources().operations, extra] })).toThrow(/no builder for \/developers\/telemetry\/orphan\.json/);
  });

  test('fails when a built document has no route', () => {
    const operations = sources().operations.filter((op) => op.path !== '/developers/telemetry/readiness.json');
    expect(() => buildSite({ ...sources(), operations })).toThrow(/telemetry\/readiness\.json is built but no GET operation/);
  });

  test('carries no personal or payment data anywhere', () => {
    for (const [key, bytes] of buildSite(sources())) {
      for (const value of [...DEMO_RESTRICTED_VALUES, ...DEMO_CREDENTIAL_RESTRICTED_VALUES]) expect(`${key}: ${bytes.includes(value)}`).toBe(`${key}: false`);
    }
  });
});

describe('catalogue.json', () => {
  test('lists every operation with method, path and liveState, the channels, the offline rule and the quickstarts', () => {
    const catalogue = buildDeveloperCatalogue(sources());
    expect(catalogue.endpoints.map((e) => [e.method, e.path, e.liveState])).toEqual(sources().operations.map((op) => [op.method, op.path, op.liveState]));
    expect(catalogue.channels.map((c) => c.key)).toEqual(CHANNELS.map((c) => c.key));
    expect(catalogue.offlineVerification.claimsLiveLifecycleFreshness).toBe(false);
    expect(catalogue.offlineVerification.statement).toMatch(/never claim live lifecycle freshness/);
    expect(catalogue.quickstarts.schemaVersion).toBe('svc.developer-quickstarts.v1');
    expect(catalogue.standards).toHaveLength(11);
  });

  test('follows the table: an operation added to it is listed with its liveState', () => {
    const shadow: Operation = { ...sources().operations[0], operationId: 'shadowThing', path: '/v1/shadow-thing', liveState: 'SHADOW' };
    const catalogue = buildDeveloperCatalogue({ ...sources(), operations: [...sources().operations, shadow] });
    expect(catalogue.endpoints.at(-1)).toMatchObject({ method: 'GET', path: '/v1/shadow-thing', liveState: 'SHADOW', servedBy: 'FUNCTION' });
  });

  test('a quickstart whose operation is not in the table is not published', () => {
    const operations = sources().operations.filter((op) => !op.path.startsWith('/v1/commercial-proofs'));
    const ids = buildQuickstarts({ ...sources(), operations }).quickstarts.map((q) => q.id);
    expect(ids).not.toContain('check-a-commercial-proof');
    expect(ids).toContain('check-a-living-object');
  });
});

describe('assets', () => {
  const assets = () => publishedAssets(sources());

  test('every operation, named schema, event, provider, standard, channel and adapter is an asset, once', () => {
    const ids = assets().map((a) => a.assetId);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = [
      ...sources().operations.map((op) => `operation:${op.operationId}`),
      ...[...contractRegistry._idmap.keys()].map((id) => `schema:${id}`),
      ...EVENT_CONTRACTS.map((e) => `event:${e.type}`),
      ...SANDBOX_PROVIDERS.map((p) => `provider:${p.providerId}`),
      ...STANDARDS.map((s) => `standard:${s.key}`),
      ...CHANNELS.map((c) => `channel:${c.key}`),
      ...ADAPTERS.map((a) => `adapter:${a.adapterId}`),
    ];
    expect(ids.sort()).toEqual(expected.sort());
    expect(assets().every((a) => a.productionAuthority === false)).toBe(true);
  });

  test('are classified by the documented rules', () => {
    const byId = new Map(assets().map((a) => [a.assetId, a]));
    expect(byId.get('operation:resolveObject')).toMatchObject({ assetType: 'API_OPERATION', lifecycle: 'LIVE', reuseScope: 'PUBLIC_CONTRACT', commercialDisposition: 'COMMERCIAL_EVIDENCE' });
    expect(byId.get('operation:getHealth')).toMatchObject({ assetType: 'API_OPERATION', commercialDisposition: 'NON_COMMERCIAL' });
    expect(byId.get('operation:getDeveloperCatalogue')).toMatchObject({ assetType: 'DEVELOPER_DOCUMENT', location: '/developers/catalogue.json' });
    expect(byId.get('operation:getAdapterManifest')).toMatchObject({ lifecycle: 'READY' });
    expect(byId.get('operation:getEventExample')).toMatchObject({ reuseScope: 'INFORMATIVE' });
    expect(byId.get('operation:runTestClock')).toMatchObject({ reuseScope: 'SANDBOX_ONLY', commercialDisposition: 'SYNTHETIC_ONLY' });
    expect(byId.get('operation:verifyCredential')).toMatchObject({ lifecycle: 'GATED' });
    expect(byId.get('schema:CustomerAccountOrderCard')).toMatchObject({ lifecycle: 'LIVE', commercialDisposition: 'COMMERCIAL_EVIDENCE' });
    expect(byId.get('standard:OAUTH_RESOURCE_AUTHORIZATION')).toMatchObject({ lifecycle: 'TARGET' });
    expect(byId.get('channel:REST_API')).toMatchObject({ lifecycle: 'LIVE' });
    expect(byId.get('channel:WEBHOOK')).toMatchObject({ lifecycle: 'READY' });
    expect(byId.get('event:svc.commercial-proof.source-modified.v1')).toMatchObject({ lifecycle: 'READY', commercialDisposition: 'COMMERCIAL_EVIDENCE' });
    expect(byId.get('adapter:commerce-source-ingress')).toMatchObject({ lifecycle: 'GATED', commercialDisposition: 'COMMERCIAL_EVIDENCE' });
    const page = assets().find((a) => a.name === 'GET /studio');
    expect(page).toMatchObject({ assetType: 'PAGE', reuseScope: 'INFORMATIVE' });
  });

  test('filters combine with AND and an absent filter matches everything', () => {
    const all = assets();
    expect(assetCatalogue(all).count).toBe(all.length);
    const sandbox = assetCatalogue(all, { reuseScope: 'SANDBOX_ONLY' });
    const sandboxProviders = assetCatalogue(all, { reuseScope: 'SANDBOX_ONLY', assetType: 'SANDBOX_PROVIDER' });
    expect(sandboxProviders.count).toBe(SANDBOX_PROVIDERS.length);
    expect(sandboxProviders.count).toBeLessThan(sandbox.count);
    expect(assetCatalogue(all, { tag: 'standards', assetType: 'CHANNEL' }).count).toBe(0);
  });
});

describe('assets/audit.json', () => {
  test('reports a provider whose example does not satisfy its own schema', () => {
    const broken = { ...SANDBOX_PROVIDERS[0], providerId: 'broken-example', exampleRequest: { unexpected: true } };
    const audit = buildAssetAudit({ ...sources(), providers: [...SANDBOX_PROVIDERS, broken] });
    const entry = audit.assets.find((a) => a.assetId === 'provider:broken-example')!;
    expect(entry.gaps.map((g) => g.code)).toContain('EXAMPLE_INVALID');
    for (const real of SANDBOX_PROVIDERS) expect(audit.assets.find((a) => a.assetId === `provider:${real.providerId}`)!.gaps).toEqual([]);
  });

  test('reports an operation nobody can try at once (no demo value for its parameter)', () => {
    const audit = buildAssetAudit({ ...sources(), demo: { ...sources().demo, credentials: [] } });
    expect(audit.assets.find((a) => a.assetId === 'operation:verifyCredential')!.gaps.map((g) => g.code)).toContain('NO_DEMO_VALUE');
  });

  test('counts what it lists', () => {
    const audit = buildAssetAudit(sources());
    expect(audit.summary.assets).toBe(audit.assets.length);
    expect(audit.summary.withGaps).toBe(audit.assets.filter((a) => a.gaps.length > 0).length);
    const total = Object.values(audit.summary.gapsByCode).reduce((a, b) => a + b, 0);
    expect(total).toBe(audit.assets.reduce((n, a) => n + a.gaps.length, 0));
    for (const code of Object.keys(audit.summary.gapsByCode)) expect(audit.gapCodes.map((g) => g.code)).toContain(code);
  });
});

describe('standards', () => {
  test('formal claims fail closed: never asserted, and missing evidence is reported', () => {
    const operations = sources().operations.filter((op) => op.path !== '/v1/activation-readiness');
    const catalogue = buildStandardsCatalogue({ ...sources(), operations });
    expect(catalogue.standards.every((s) => s.formalClaim.status === 'NOT_ASSERTED')).toBe(true);
    const oidc = catalogue.standards.find((s) => s.key === 'OIDC_FEDERATION')!;
    expect(oidc.evidenceProfile.evidenceComplete).toBe(false);
    const audit = buildAssetAudit({ ...sources(), operations });
    expect(audit.assets.find((a) => a.assetId === 'standard:OIDC_FEDERATION')!.gaps.map((g) => g.code)).toContain('EVIDENCE_INCOMPLETE');
    expect(buildStandardsCatalogue(sources()).standards.find((s) => s.key === 'OIDC_FEDERATION')!.evidenceProfile.evidenceComplete).toBe(true);
  });

  test('ISO 20022 targets name fields the contract has, and nothing gives payment authority', () => {
    const iso = buildIso20022();
    expect(iso.targets.every((t) => t.sourceInContract)).toBe(true);
    expect([iso.bankingAuthority, iso.paymentAuthority, iso.paymentAccountDataProjected, iso.messagesProduced.length]).toEqual([false, false, false, 0]);
    expect(iso.targets.filter((t) => /paymentState|refundState/.test(t.source)).every((t) => t.projection === 'NEVER')).toBe(true);
  });
});

describe('adapters and network conformance', () => {
  test('the manifest activates nothing', () => {
    const manifest = buildAdapterManifest(sources());
    expect(manifest.activatesAdapters).toBe(false);
    expect(manifest.adapters.every((a) => a.activation === 'NOT_ACTIVATED')).toBe(true);
  });

  test('every declared adapter conforms to the published contracts, and none is production-accepted', () => {
    const conformance = buildNetworkConformance(sources());
    expect(conformance.productionAcceptance).toBe(false);
    for (const a of conformance.adapters) expect(`${a.adapterId} ${a.conformance} ${a.productionAcceptance}`).toBe(`${a.adapterId} CONFORMS_TO_PUBLISHED_CONTRACTS false`);
  });

  test('an adapter on an unknown channel or carrying an unpublished event does not conform', () => {
    const rogue = { ...ADAPTERS[0], adapterId: 'rogue', channel: 'CARRIER_PIGEON', events: ['svc.unknown.v1'] } as unknown as AdapterEntry;
    const conformance = buildNetworkConformance({ ...sources(), adapters: [...ADAPTERS, rogue] });
    const entry = conformance.adapters.find((a) => a.adapterId === 'rogue')!;
    expect(entry.conformance).toBe('DOES_NOT_CONFORM');
    expect(entry.evidence.filter((e) => !e.passed).map((e) => e.check)).toEqual(['channel', 'event svc.unknown.v1']);
  });
});

describe('event contracts', () => {
  const PERSONAL = /name|email|phone|address|card|iban|account|holder|birth|customer(?!Pii)/i;

  test('payloads are closed and name no personal field', () => {
    for (const contract of EVENT_CONTRACTS) {
      const schema = z.toJSONSchema(contract.payload, { io: 'input' }) as { properties: Record<string, unknown>; additionalProperties: boolean };
      expect(schema.additionalProperties).toBe(false);
      for (const field of Object.keys(schema.properties)) expect(`${contract.type}.${field}`).not.toMatch(PERSONAL);
      const example = examplePayloads(sources())[contract.type] as Record<string, unknown>;
      expect(contract.payload.safeParse(example).success).toBe(true);
      expect(contract.payload.safeParse({ ...example, customerEmail: 'erika.demo@example.invalid' }).success).toBe(false);
    }
  });

  test('examples name demo records that exist', () => {
    const { demo } = sources();
    const examples = examplePayloads(sources()) as Record<string, Record<string, string>>;
    expect(demo.objects).toContain(examples['svc.living-object.state-changed.v1'].reference);
    expect(demo.commercialProofs).toContain(examples['svc.commercial-proof.source-modified.v1'].reference);
    expect(demo.credentials).toContain(examples['svc.credential.status-changed.v1'].claimId);
  });
});

describe('release evidence', () => {
  test('the BOM holds exactly the runtime dependency closure npm itself resolves', () => {
    // --workspaces=false: the project's own workspace (packages/verify) is first-party code, not a dependency.
    const npm = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable', '--workspaces=false'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .filter((line) => line.includes('node_modules'))
      .map((line) => line.slice(line.lastIndexOf('node_modules/') + 'node_modules/'.length));
    const ours = [...runtimePackages(sources()).values()].map((p) => p.name);
    expect([...new Set(ours)].sort()).toEqual([...new Set(npm)].sort());
    expect(ours).not.toContain('jest');
    expect(ours).toContain('zod');
  });

  test('each component is pinned by version, purl and lockfile hash; the provenance names every other document by digest', () => {
    const site = buildSite(sources());
    const evidence = json(site, 'developers/release-evidence/example.json');
    expect(evidence.commit).toBe(FIXED_RELEASE.commit);
    expect(evidence.sbom.metadata.timestamp).toBe('2001-02-03T04:05:06.000Z');
    for (const c of evidence.sbom.components) {
      expect(c.purl).toBe(`pkg:npm/${c.name.replace('@', '%40')}@${c.version}`);
      expect(c.hashes.map((h: { alg: string }) => h.alg)).toContain('SHA-512');
    }
    const subjects = Object.fromEntries(evidence.provenance.subject.map((s: { name: string; digest: { sha256: string } }) => [s.name, s.digest.sha256]));
    // Documents that name origins are digested in their origin-neutral form (docs/catalogues.md).
    const neutral = buildOriginDocuments(sources(), NEUTRAL_ORIGINS);
    const others = [...site].filter(([key]) => key !== 'developers/release-evidence/example.json');
    expect(subjects).toEqual(Object.fromEntries(others.map(([key, bytes]) => [key, sha256(neutral.get(key) ?? bytes)])));
    expect(evidence.provenance.predicate.buildDefinition.resolvedDependencies[0]).toEqual({ name: 'source', digest: { gitCommit: FIXED_RELEASE.commit } });
  });

  test('the examples a load publishes are digested in their template form: the evidence is the same whatever records the examples are derived from', () => {
    const templates = buildSite(sources());
    const derived = buildSite({ ...sources(), ingressRecords: validateRecords(demoDocument(new Date('2026-11-01T12:00:00Z'))) });
    const key = 'developers/sandbox/examples.json';
    expect(derived.get(key)).not.toBe(templates.get(key));
    expect(derived.get('developers/release-evidence/example.json')).toBe(templates.get('developers/release-evidence/example.json'));
    const subject = json(derived, 'developers/release-evidence/example.json').provenance.subject.find((s: { name: string }) => s.name === key);
    expect(subject.digest.sha256).toBe(sha256(templates.get(key)!));
  });

  test('contracts.json pins each contract document by the digest of its published bytes (origin-neutral form where it names origins)', () => {
    const site = buildSite(sources());
    const neutral = buildOriginDocuments(sources(), NEUTRAL_ORIGINS);
    for (const c of json(site, 'developers/contracts.json').contracts) {
      const key = c.path.slice(1);
      expect(c.sha256).toBe(sha256(neutral.get(key) ?? site.get(key)!));
    }
  });
});

describe('sandbox documents', () => {
  test('certification kits carry the exact response of the reference provider, and grant no live acceptance', () => {
    const kits = buildProviderCertification(sources(), (p, r) => runProvider(p as never, r));
    expect(kits.liveProviderAcceptance).toBe(false);
    for (const kit of kits.kits) {
      const provider = SANDBOX_PROVIDERS.find((p) => p.providerId === kit.providerId)!;
      expect(kit.readiness).toBe('KIT_READY');
      expect(kit.liveProviderAcceptance).toBe(false);
      const example = kit.vectors.find((v) => v.name === 'example')!;
      expect(example.expectResponse).toEqual(runProvider(provider, provider.requestSchema.parse(provider.exampleRequest)));
      expect(kit.vectors.some((v) => v.expectStatus === 422)).toBe(true);
    }
  });

  test('providers.json lists every provider with its id, example request and JSON Schema', () => {
    const providers = json(buildSite(sources()), 'developers/sandbox/providers.json');
    expect(providers.providers.map((p: { providerId: string }) => p.providerId)).toEqual(SANDBOX_PROVIDERS.map((p) => p.providerId));
    for (const p of providers.providers) {
      expect(p.exampleRequest).toBeDefined();
      expect(p.requestSchema.type).toBe('object');
    }
  });
});

describe('small documents', () => {
  test('telemetry readiness names no endpoint, header value or secret', () => {
    const text = JSON.stringify(buildTelemetryReadiness());
    expect(text).not.toMatch(/https?:\/\/|[a-z0-9-]+\.(com|net|io|aws|amazonaws)\b|Bearer |Authorization|api[-_]?key|x-[a-z-]+:/i);
  });

  test('the problem-details example is an ErrorResponse exactly as the boundary renders one', () => {
    const example = buildProblemDetailsExample();
    expect(ErrorResponse.safeParse(example).success).toBe(true);
    expect(example).toMatchObject({ status: 404, code: 'NOT_FOUND', type: 'urn:svc:problem:not-found', service: 'public-trust-verification-service' });
  });
});
