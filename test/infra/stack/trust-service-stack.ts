import { existsSync } from 'node:fs';
import path from 'node:path';
import { createApp } from '../../../lib/stack/app';
import { documentKeys, fixtureSite, logicalIdOf, referencedIds, SKIP_BUNDLING } from '../support';
import { apiIdOf, deadLettersId, json, ledgerKeyId, loaderRoleId, stack, synthesized, tableId } from './template';

/** lib/stack/trust-service-stack.ts: the stack's outputs and the origins it publishes. */

describe('the stack outputs', () => {
  test('the loader role, table, API and key are stack outputs', () => {
    expect(json.Outputs.LoaderRoleArn.Value).toEqual({ 'Fn::GetAtt': [loaderRoleId, 'Arn'] });
    expect(json.Outputs.TableName.Value).toEqual({ Ref: tableId });
    expect(json.Outputs.LedgerKeyArn.Value).toEqual({ 'Fn::GetAtt': [ledgerKeyId, 'Arn'] });
    expect(json.Outputs.LedgerSigningKeySecretArn).toBeUndefined();
    expect(json.Outputs.SequencerDeadLetterQueueUrl.Value).toEqual({ Ref: deadLettersId });
    // The API's own URL stays an output: the edge's origin, and the public entry with edge=false.
    expect(referencedIds(json.Outputs.ApiUrl.Value)).toContain(apiIdOf(stack));
  });
});

describe('the two origins named by the published contract and catalogue', () => {
  const jsonDeployment = (j: typeof json) =>
    Object.values(j.Resources).find((r) => r.Type === 'Custom::CDKBucketDeployment' && r.Properties.SystemMetadata['content-type'] === 'application/json')!;

  test('by default both are the distribution\'s own domain, filled in at deploy time', () => {
    const distributionId = logicalIdOf(stack, stack.edge!.distribution);
    for (const origin of [stack.origins.verificationOrigin, stack.origins.generalOrigin]) {
      expect(stack.resolve(origin)).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] });
    }
    // The origin documents go with the JSON deployment as data whose markers are the distribution's domain.
    const deployment = jsonDeployment(json);
    expect(deployment.Properties.SourceObjectKeys.length).toBe(1 + stack.catalogue.originKeys.length);
    expect(referencedIds(deployment.Properties.SourceMarkers)).toContain(distributionId);
    expect(stack.catalogue.originKeys).toEqual(['developers/openapi.json', 'developers/catalogue.json']);
    for (const key of stack.catalogue.originKeys) expect(stack.catalogue.originDocuments.get(key)).toBeDefined();
    expect(JSON.stringify(json.Outputs.VerificationOrigin.Value)).toContain(distributionId);
    // Without the edge: the API's own URL (test/infra/edge.test.ts).
  });

  test('the build output\'s copies of those documents (local origins) are not deployed; every other document is', () => {
    const fresh = synthesized();
    const assembly = fresh.app.synth();
    const [hash] = String(jsonDeployment(fresh.json).Properties.SourceObjectKeys[0]).split('.');
    const staged = path.join(assembly.directory, `asset.${hash}`);
    expect(existsSync(staged)).toBe(true);
    const { originKeys, loadedKeys } = fresh.stack.catalogue;
    // The documents a load publishes are not in it either: their own deployment puts their templates (test/infra/stack/catalogue.ts).
    for (const key of [...originKeys, ...loadedKeys]) expect(existsSync(path.join(staged, key))).toBe(false);
    for (const key of documentKeys.filter((k) => !originKeys.includes(k) && !loadedKeys.includes(k))) expect(existsSync(path.join(staged, key))).toBe(true);
    for (const [key, bytes] of fresh.stack.catalogue.originDocuments) expect(`${key}: ${bytes.includes('127.0.0.1')}`).toBe(`${key}: false`);
  });

  test('context verificationOrigin and generalOrigin (custom domains) are named in the contract and catalogue', () => {
    const custom = synthesized({ verificationOrigin: 'https://verify.example.org/', generalOrigin: 'https://developers.example.org' });
    expect(custom.stack.origins).toEqual({ verificationOrigin: 'https://verify.example.org', generalOrigin: 'https://developers.example.org' });
    const openapi = JSON.parse(custom.stack.catalogue.originDocuments.get('developers/openapi.json')!);
    expect(openapi.servers.map((s: { url: string }) => s.url)).toEqual(['https://verify.example.org', 'https://developers.example.org']);
    expect(openapi.paths['/v1/objects/{reference}'].servers.map((s: { url: string }) => s.url)).toEqual(['https://verify.example.org']);
    expect(openapi.paths['/developers/catalogue.json'].servers.map((s: { url: string }) => s.url)).toEqual(['https://developers.example.org']);
    const catalogue = JSON.parse(custom.stack.catalogue.originDocuments.get('developers/catalogue.json')!);
    expect(catalogue.baseUrl).toBe('https://developers.example.org');
    expect(catalogue.origins).toEqual({ verification: 'https://verify.example.org', general: 'https://developers.example.org' });
    expect(custom.json.Outputs.GeneralOrigin.Value).toBe('https://developers.example.org');
  });

  test('publicBaseUrl stands for both when the origins are not given', () => {
    const custom = synthesized({ publicBaseUrl: 'https://trust.example.org' });
    expect(custom.stack.origins).toEqual({ verificationOrigin: 'https://trust.example.org', generalOrigin: 'https://trust.example.org' });
  });

  test('an origin that is not an https URL stops the synth', () => {
    expect(() => createApp({ context: { ...SKIP_BUNDLING, verificationOrigin: 'http://verify.example.org' } }, { siteDir: fixtureSite() })).toThrow('verificationOrigin');
    expect(() => createApp({ context: { ...SKIP_BUNDLING, generalOrigin: 'https://x.example.org/?q=1' } }, { siteDir: fixtureSite() })).toThrow('generalOrigin');
  });
});
