import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { esbuildOptionsAsDeployed } from '../../lib/stack/bundling';

export const ROOT = path.resolve(__dirname, '../..');

export interface BuiltBundle {
  /** Bytes of the minified index.js. */
  bytes: number;
  /** Inputs that reach the output (esbuild lists tree-shaken files with 0 bytes). */
  inputs: string[];
  metafile: Metafile;
  /** The minified index.js itself. */
  code: string;
}

/**
 * Bundles an entry (a file, or TypeScript source resolved from the repository root) in memory with
 * the stack's options. `credentials: 'sdk-chain'` keeps the SDK's own credential chain (the stock
 * client the yardstick is) instead of the environment-only provider the stack substitutes.
 */
export async function buildBundle(entry: string | { contents: string }, { credentials = 'environment' }: { credentials?: 'environment' | 'sdk-chain' } = {}): Promise<BuiltBundle> {
  const result = await build({
    ...(typeof entry === 'string'
      ? { entryPoints: [path.join(ROOT, entry)] }
      : { stdin: { contents: entry.contents, resolveDir: ROOT, sourcefile: 'entry.ts', loader: 'ts' as const } }),
    absWorkingDir: ROOT,
    ...esbuildOptionsAsDeployed({ credentials }),
    outfile: path.join(ROOT, 'cdk.out', 'bundle-test', 'index.js'),
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const [, output] = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('index.js'))!;
  return {
    bytes: output.bytes,
    inputs: Object.entries(output.inputs).filter(([, info]) => info.bytesInOutput > 0).map(([input]) => input),
    metafile: result.metafile,
    code: result.outputFiles.find((file) => file.path.endsWith('index.js'))!.text,
  };
}
