import path from 'node:path';
import { build } from 'esbuild';
import { operations } from '../../functions/contract/operations';
import { sandboxOperations } from '../../functions/contract/operations/sandbox';
import { ESBUILD_TARGET } from '../../lib/stack/bundling';

const ROOT = path.resolve(__dirname, '../..');
const isSandbox = (op: { path: string }) => op.path.startsWith('/developers/sandbox/') && !op.path.endsWith('.json');

describe('sandbox isolation', () => {
  it('every sandbox operation in the contract table is a POST Lambda with access none', () => {
    const sandbox = operations.filter(isSandbox);
    expect(sandbox.map((op) => op.operationId).sort()).toEqual(sandboxOperations.map((op) => op.operationId).sort());
    for (const op of sandbox) {
      expect(op.method).toBe('POST');
      expect(op.integration).toEqual({ kind: 'lambda', entry: expect.stringMatching(/^functions\/handlers\/sandbox-[a-z-]+\.ts$/), access: 'none' });
    }
  });

  it('the spec documented routes are LIVE and the catalogue-listed ones SHADOW', () => {
    const liveState = Object.fromEntries(sandboxOperations.map((op) => [op.path, op.liveState]));
    expect(liveState).toMatchObject({
      '/developers/sandbox/test-clock': 'LIVE',
      '/developers/sandbox/providers/{providerId}/run': 'LIVE',
      '/developers/sandbox/trust-policy': 'SHADOW',
    });
  });

  it.each(sandboxOperations.map((op) => [op.operationId, op.integration] as const))(
    '%s bundles without the AWS SDK or the store module',
    async (_id, integration) => {
      if (integration.kind !== 'lambda') throw new Error('sandbox operations are Lambda operations');
      const result = await build({
        entryPoints: [path.join(ROOT, integration.entry)],
        bundle: true,
        platform: 'node',
        target: ESBUILD_TARGET,
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs.length).toBeGreaterThan(10);
      expect(inputs.filter((input) => input.includes('@aws-sdk') || input.includes('@smithy'))).toEqual([]);
      // The store's error vocabulary (errors.ts, no I/O) comes with the HTTP boundary; no store access does.
      expect(inputs.filter((input) => input.includes('functions/store/') && !input.endsWith('functions/store/errors.ts'))).toEqual([]);
      expect(inputs).toContain(integration.entry);
    },
  );
});
