import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { esbuildOptionsAsDeployed } from '../../lib/stack/bundling';
import { PROFILE_DIR } from './lambda-process';

export interface Bundle {
  /** The written index.js (what Lambda loads). */
  file: string;
  /** Size of index.js in bytes (the source map is not loaded unless a stack trace is printed). */
  bytes: number;
  /** The largest contributors (npm package or project folder) with their bytes in the output. */
  largest: { name: string; bytes: number }[];
}

function contributors(metafile: Metafile, outfile: string): { name: string; bytes: number }[] {
  const output = Object.entries(metafile.outputs).find(([file]) => file.endsWith(path.basename(outfile)))![1];
  const byName = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const name = pkg ? pkg[1] : input.split('/').slice(0, 2).join('/');
    byName.set(name, (byName.get(name) ?? 0) + bytesInOutput);
  }
  return [...byName].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/**
 * Bundles an entry the way the stack's NodejsFunction does (lib/stack/bundling.ts: esbuild,
 * CommonJS for Node.js, minified, external source map without sources, the AWS SDK bundled, its
 * credential chain replaced by the environment's credentials). `entry` is a file, or `{ contents }`
 * resolved from the repository root. `credentials: 'sdk-chain'` keeps the SDK's own chain: the
 * stock DynamoDB client of the yardstick.
 */
export async function bundle(
  entry: string | { contents: string; name: string },
  outdir: string,
  root: string,
  { credentials = 'environment' }: { credentials?: 'environment' | 'sdk-chain' } = {},
): Promise<Bundle> {
  mkdirSync(outdir, { recursive: true });
  const outfile = path.join(outdir, 'index.js');
  const result = await build({
    ...(typeof entry === 'string'
      ? { entryPoints: [path.resolve(root, entry)] }
      : { stdin: { contents: entry.contents, resolveDir: root, sourcefile: entry.name, loader: 'ts' as const } }),
    absWorkingDir: root,
    ...esbuildOptionsAsDeployed({ credentials }),
    // Profiled (BENCH_CPU_PROFILE): not minified, so a profile names the functions it shows.
    ...(PROFILE_DIR ? { minify: false } : {}),
    outfile,
    metafile: true,
    logLevel: 'silent',
  });
  const largest = contributors(result.metafile, outfile);
  const bytes = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('index.js'))![1].bytes;
  return { file: outfile, bytes, largest };
}
