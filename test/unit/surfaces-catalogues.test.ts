import type { Operation } from '../../functions/contract/operation';
import { CHANNELS, OFFLINE_VERIFICATION_STATEMENT } from '../../functions/contract/channels';
import { operations } from '../../functions/contract/operations';
import { surfacesOperations } from '../../functions/contract/operations/surfaces';
import { TrustFabricCatalogue, TrustInfrastructure } from '../../functions/contract/schemas/surfaces';
import { STANDARDS } from '../../functions/contract/standards';
import { ASSURANCE_RULES, assuranceLevelOf } from '../../functions/domain/surfaces/assurance';
import type { OperationRow } from '../../functions/domain/surfaces/endpoints';
import { buildTrustFabricCatalogue, TRUST_SERVICES } from '../../functions/domain/surfaces/trust-fabric';
import { buildTrustInfrastructure, lowestMaturity, VERTICAL_PROFILES } from '../../functions/domain/surfaces/trust-infrastructure';

const BASE = 'https://trust.example.org/prod';

const row = (method: 'GET' | 'POST', path: string, liveState: OperationRow['liveState'], tag = 'T'): OperationRow => ({
  operationId: `${method}${path}`,
  method,
  path,
  liveState,
  tag,
  summary: path,
});

describe('the surfaces in the contract table', () => {
  it('registers the seven routes the specification lists, all LIVE, pages as text/html', () => {
    const byPath: Record<string, Operation> = Object.fromEntries(surfacesOperations.map((op) => [op.path, op]));
    expect(Object.keys(byPath).sort()).toEqual(
      ['/studio', '/trust-receipt/{reference}', '/v1/activation-readiness', '/v1/activation-readiness/production-foundations', '/v1/trust-fabric/catalogue', '/v1/trust-infrastructure', '/verify'].sort(),
    );
    for (const op of surfacesOperations) {
      expect(op.method).toBe('GET');
      expect(op.liveState).toBe('LIVE');
      expect(op.integration.kind).toBe('lambda');
    }
    for (const page of ['/studio', '/verify', '/trust-receipt/{reference}']) expect(byPath[page].response.mediaType).toBe('text/html');
    // Catalogue builders read nothing; readiness and pages read the table only.
    expect(byPath['/v1/trust-fabric/catalogue'].integration).toMatchObject({ access: 'none' });
    expect(byPath['/v1/trust-infrastructure'].integration).toMatchObject({ access: 'none' });
    expect(byPath['/v1/activation-readiness'].integration).toMatchObject({ access: 'none' });
    expect(byPath['/v1/activation-readiness/production-foundations'].integration).toMatchObject({ access: 'table-read' });
  });
});

describe('trust fabric catalogue', () => {
  it('is valid against its schema and every endpoint it names is in the contract table with the same liveState', () => {
    const doc = buildTrustFabricCatalogue(operations, BASE);
    expect(TrustFabricCatalogue.parse(doc)).toEqual(doc);
    expect(doc.providerNeutral).toBe(true);
    for (const service of doc.trustServices) {
      expect(service.endpoints.length).toBeGreaterThan(0);
      for (const e of service.endpoints) {
        const op = operations.find((o) => o.method === e.method && o.path === e.path);
        expect(op?.liveState).toBe(e.liveState);
        expect(e.href).toBe(`${BASE}${e.path}`);
      }
    }
    expect(doc.trustServices.map((s) => s.key)).toContain('LIVING_OBJECT_RESOLUTION');
  });

  it('leaves out a service none of whose endpoints is published, and takes the most available state', () => {
    const table = [row('GET', '/v1/objects/{reference}', 'LIVE'), row('GET', '/verify', 'READY'), row('POST', '/developers/sandbox/trust-policy', 'SHADOW')];
    const doc = buildTrustFabricCatalogue(table, BASE);
    expect(doc.trustServices.map((s) => [s.key, s.liveState, s.endpoints.length])).toEqual([
      ['LIVING_OBJECT_RESOLUTION', 'LIVE', 2],
      ['TRUST_POLICY_EVALUATION', 'SHADOW', 1],
    ]);
  });

  it('never names a provider and keeps offline assessment below CURRENT_CONFIRMED', () => {
    const offline = TRUST_SERVICES.find((s) => s.key === 'OFFLINE_VERIFICATION_ASSESSMENT')!;
    expect(offline.assuranceLevels).not.toContain('CURRENT_CONFIRMED');
    const doc = buildTrustFabricCatalogue(operations, BASE);
    const restricted = doc.disclosureClasses.find((c) => c.key === 'RESTRICTED')!;
    expect(restricted.disclosedInResponses).toBe(false);
    expect(doc.disclosureClasses.filter((c) => c.disclosedInResponses).every((c) => !c.containsCustomerPii && !c.containsPaymentAccountData)).toBe(true);
  });
});

describe('assurance levels', () => {
  it.each([
    [{ disposition: 'UNKNOWN', fresh: false, evidenceIntegrityConfirmed: false }, 'UNKNOWN'],
    [{ disposition: 'HISTORICAL_ONLY', fresh: false, evidenceIntegrityConfirmed: true }, 'HISTORICAL'],
    [{ disposition: 'STALE', fresh: false, evidenceIntegrityConfirmed: true }, 'OBSERVED'],
    [{ disposition: 'MODIFIED', fresh: true, evidenceIntegrityConfirmed: false }, 'OBSERVED'],
    [{ disposition: 'CURRENT', fresh: true, evidenceIntegrityConfirmed: false }, 'OBSERVED'],
    [{ disposition: 'CURRENT', fresh: true, evidenceIntegrityConfirmed: true }, 'CURRENT_CONFIRMED'],
  ])('%o -> %s', (current, level) => {
    expect(assuranceLevelOf(current)).toBe(level);
  });

  it('are ranked in the order they are listed', () => {
    expect(ASSURANCE_RULES.map((r) => r.rank)).toEqual([0, 1, 2, 3]);
  });
});

describe('trust infrastructure', () => {
  const doc = buildTrustInfrastructure(operations, BASE);

  it('is valid against its schema', () => {
    expect(TrustInfrastructure.parse(doc)).toEqual(doc);
  });

  it('carries the canonical standards and channels tables as they are', () => {
    expect(doc.standards).toEqual(STANDARDS.map((s) => ({ ...s })));
    expect(doc.standards).toHaveLength(11);
    expect(doc.channels).toEqual(CHANNELS.map((c) => ({ ...c })));
    expect(doc.channels).toHaveLength(11);
    expect(doc.readiness.offlineVerification).toBe(OFFLINE_VERIFICATION_STATEMENT);
    expect(doc.readiness.channels).toEqual({ ACTIVE: 4, READY: 7 });
    expect(doc.readiness.standards).toEqual({ IMPLEMENTATION_READY: 6, TARGET_ALIGNMENT: 3, REFERENCE: 2 });
    expect(doc.readiness.productionAuthority).toBe('FAIL_CLOSED');
  });

  it('lists every operation exactly once among the capabilities, and counts liveStates from the table', () => {
    const listed = doc.capabilities.flatMap((c) => c.endpoints.map((e) => e.operationId));
    expect(listed.sort()).toEqual(operations.map((op) => op.operationId).sort());
    const total = Object.values(doc.readiness.endpoints).reduce((a, b) => a + b, 0);
    expect(total).toBe(operations.length);
    expect(doc.readiness.endpoints.LIVE).toBe(operations.filter((op) => op.liveState === 'LIVE').length);
  });

  it('profiles name only standards of the table and trust services of the fabric, with their weakest maturity', () => {
    const keys = new Set(STANDARDS.map((s) => s.key));
    const services = new Set(TRUST_SERVICES.map((s) => s.key));
    for (const p of VERTICAL_PROFILES) {
      for (const s of p.standards) expect(keys.has(s)).toBe(true);
      for (const s of p.trustServices) expect(services.has(s)).toBe(true);
    }
    expect(lowestMaturity(['OIDC_FEDERATION', 'SCIM_PROVISIONING'])).toBe('TARGET_ALIGNMENT');
    expect(lowestMaturity(['W3C_VC_2_CREDENTIAL', 'EUDI_WALLET_INTEROP', 'OAUTH_RESOURCE_AUTHORIZATION'])).toBe('REFERENCE');
    expect(lowestMaturity([])).toBeNull();
  });

  it('links only routes the contract table publishes, by absolute URL', () => {
    for (const [, url] of Object.entries(doc.links)) {
      expect(url.startsWith(`${BASE}/`)).toBe(true);
      const path = url.slice(BASE.length);
      expect(operations.some((op) => op.method === 'GET' && op.path === path)).toBe(true);
    }
    const bare = buildTrustInfrastructure([row('GET', '/v1/trust-infrastructure', 'LIVE'), row('GET', '/v1/ledger', 'LIVE')], BASE);
    expect(bare.links).toEqual({ self: `${BASE}/v1/trust-infrastructure`, ledgerKey: `${BASE}/v1/ledger` });
    expect(bare.developerDocuments).toEqual([]);
  });

  it('links the developer documents of the table', () => {
    const documents = operations.filter((op) => op.method === 'GET' && op.path.startsWith('/developers/') && !op.path.includes('{'));
    expect(doc.developerDocuments.map((d) => d.path)).toEqual(documents.map((op) => op.path));
  });
});
