import { ASSET_TAGS, AssetCatalogue } from '../../functions/contract/schemas/catalogues';
import { OfflineVerificationRequest } from '../../functions/contract/schemas/sandbox';
import { assetTags } from '../../functions/domain/asset-catalogue';
import { assets } from '../../functions/generated/assets';
import { listAssetsParams } from '../../functions/generated/params';
import { buildOpenApi } from '../../lib/contract/openapi';
import { buildImportDocument, PLACEHOLDER_TARGETS } from '../../lib/contract/import-document';

/** The contract types what its descriptions say: the asset tags are a set, the offline verifier's response one of two answers. */
type Json = Record<string, any>;

describe("the asset catalogue's tags", () => {
  test('are exactly the tags the catalogue uses, no more, no fewer', () => {
    expect([...ASSET_TAGS].sort()).toEqual(assetTags(assets()));
  });

  test('are an enum of the published contract (the filter and every asset), and the filter refuses any other tag', () => {
    const document = buildOpenApi() as Json;
    const filter = (document.paths['/developers/assets.json'].get.parameters as Json[]).find((p) => p.name === 'tag')!;
    expect(filter.schema.enum).toEqual([...ASSET_TAGS]);
    expect(document.components.schemas.Asset.properties.tags.items.enum).toEqual([...ASSET_TAGS]);
    expect(listAssetsParams.tag.check('ledger')).toEqual({ value: 'ledger' });
    expect(listAssetsParams.tag.check('no-such-tag').why).toMatch(/^must be one of /);
    const catalogue = { schemaVersion: 'svc.asset-catalogue.v1', filters: { assetType: null, lifecycle: null, reuseScope: null, commercialDisposition: null, tag: null } };
    const withTags = (tag: string[]) => ({ ...catalogue, vocabularies: { assetType: [], lifecycle: [], reuseScope: [], commercialDisposition: [], tag }, total: 0, count: 0, assets: [] });
    expect(AssetCatalogue.safeParse(withTags(['ledger'])).success).toBe(true);
    expect(AssetCatalogue.safeParse(withTags(['no-such-tag'])).success).toBe(false);
  });
});

describe("the offline verifier's `response`", () => {
  const resolution = { schemaVersion: 'svc.living-object-resolution.v1', object: { reference: 'ORD-1' }, current: { state: 'DELIVERED' }, timeline: [] };
  const proof = { schemaVersion: 'svc.commercial-proof-evidence.v1', proof: { reference: 'PRF-1' }, verification: {} };
  const bundle = (response: unknown) => ({ response, trustedKeys: ['k'], lastOnlineStatusCheckAt: '2026-01-01T00:00:00Z' });

  test('is a living object resolution or a commercial proof evidence, told apart by schemaVersion, other members kept', () => {
    expect(OfflineVerificationRequest.safeParse(bundle(resolution)).data?.response).toEqual(resolution);
    expect(OfflineVerificationRequest.safeParse(bundle(proof)).data?.response).toEqual(proof);
    for (const other of [{ schemaVersion: 'svc.health.v1' }, { schemaVersion: 'svc.living-object-resolution.v1', proof: {} }, { ...proof, proof: 'PRF-1' }, []]) {
      expect(OfflineVerificationRequest.safeParse(bundle(other)).success).toBe(false);
    }
  });

  test('is published as anyOf the two shapes (no oneOf, which the API Gateway import refuses, in either document)', () => {
    const contract = buildOpenApi() as Json;
    const response = contract.components.schemas.SandboxOfflineVerificationRequest.properties.response;
    expect(response.anyOf.map((option: Json) => option.properties.schemaVersion.const)).toEqual(['svc.living-object-resolution.v1', 'svc.commercial-proof-evidence.v1']);
    expect(JSON.stringify(contract)).not.toContain('"oneOf"');
    expect(JSON.stringify(buildImportDocument(PLACEHOLDER_TARGETS))).not.toContain('"oneOf"');
  });
});
