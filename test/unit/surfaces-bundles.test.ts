import path from 'node:path';
import { build } from 'esbuild';
import { surfacesOperations } from '../../functions/contract/operations/surfaces';

const ROOT = path.resolve(__dirname, '../..');

/** The packages a handler's bundle holds (from esbuild's metafile). */
async function bundledPackages(entry: string): Promise<Set<string>> {
  const result = await build({ entryPoints: [path.join(ROOT, entry)], bundle: true, platform: 'node', format: 'cjs', write: false, metafile: true, logLevel: 'silent' });
  const packages = new Set<string>();
  for (const input of Object.keys(result.metafile!.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m) packages.add(m[1]);
  }
  return packages;
}

const entryOf = (operationId: string) => {
  const op = surfacesOperations.find((o) => o.operationId === operationId)!;
  if (op.integration.kind !== 'lambda') throw new Error(`${operationId} is not a function`);
  return op.integration.entry;
};

describe('surface bundles carry only what their function needs', () => {
  it('activation readiness reads only its settings: no AWS SDK, no schema library', async () => {
    const packages = await bundledPackages(entryOf('getActivationReadiness'));
    expect([...packages].filter((p) => p.startsWith('@aws-sdk/') || p.startsWith('@smithy/') || p === 'zod')).toEqual([]);
  });

  it('production foundations reads the table but needs no schema library', async () => {
    const packages = await bundledPackages(entryOf('getProductionFoundations'));
    expect(packages.has('@aws-sdk/client-dynamodb')).toBe(true);
    expect(packages.has('zod')).toBe(false);
  });

  it('the catalogue builders read nothing: no AWS SDK', async () => {
    for (const id of ['getTrustFabricCatalogue', 'getTrustInfrastructure']) {
      const packages = await bundledPackages(entryOf(id));
      expect([id, [...packages].filter((p) => p.startsWith('@aws-sdk/') || p.startsWith('@smithy/'))]).toEqual([id, []]);
    }
  });
});
