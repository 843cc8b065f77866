import path from 'node:path';
import { build } from 'esbuild';
import { landingOperations } from '../../functions/contract/operations/landing';

const ROOT = path.resolve(__dirname, '../..');

/** The inputs that reach a handler's minified bundle (esbuild lists tree-shaken files with 0 bytes). */
async function bundledInputs(operationId: string): Promise<string[]> {
  const op = landingOperations.find((o) => o.operationId === operationId)!;
  if (op.integration.kind !== 'lambda') throw new Error(`${operationId} is not a function`);
  const result = await build({ entryPoints: [path.join(ROOT, op.integration.entry)], bundle: true, minify: true, platform: 'node', format: 'cjs', write: false, metafile: true, logLevel: 'silent' });
  const output = Object.values(result.metafile!.outputs)[0];
  return Object.entries(output.inputs)
    .filter(([, info]) => info.bytesInOutput > 0)
    .map(([input]) => input);
}

describe('landing bundles carry only what their function needs (cold-start-sensitive: the first thing a visitor meets)', () => {
  test('the landing and the developer start read the route list generated from the contract table, nothing on AWS', async () => {
    for (const id of ['getLanding', 'getDeveloperLanding']) {
      const inputs = await bundledInputs(id);
      expect([id, inputs.filter((i) => i.includes('@aws-sdk/') || i.includes('@smithy/'))]).toEqual([id, []]);
      expect(inputs).toContain('functions/generated/routes.ts');
      expect(inputs).not.toContain('functions/contract/operations/index.ts');
    }
  });

  test('the API reference page needs neither the table nor the schema library', async () => {
    const inputs = await bundledInputs('getApiReference');
    expect(inputs.filter((i) => i.includes('node_modules/zod/') || i.startsWith('functions/contract/operations/') || i.includes('@aws-sdk/'))).toEqual([]);
  });
});
