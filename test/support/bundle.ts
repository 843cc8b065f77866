import { readFileSync } from 'node:fs';
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

/** Logging libraries a bundle must not carry beside the Powertools Logger. */
const LOGGING_PACKAGES = /node_modules\/(pino|winston|bunyan|log4js|loglevel|consola|roarr|tslog|signale)\//;

/**
 * What a bundle holds (its inputs, project-relative) of the design card's runtime, and any second
 * logger: a logging library, or service code that makes or writes log lines itself (a Logger made
 * anywhere but functions/logging/logger.ts, or lines written to the output descriptors directly).
 */
export function cardRuntimeIn(inputs: string[]) {
  const ownLogging = (i: string) =>
    i.startsWith('functions/') && i !== 'functions/logging/logger.ts' && /new Logger\(|writeSync\(\s*[12]\b|process\.std(out|err)\.write/.test(readFileSync(path.join(ROOT, i), 'utf8'));
  return {
    middy: inputs.includes('node_modules/@middy/core/index.js'),
    powertoolsLogger: inputs.some((i) => /node_modules\/@aws-lambda-powertools\/logger\/lib\/(esm|cjs)\/Logger\.js$/.test(i)),
    otherLoggers: inputs.filter((i) => LOGGING_PACKAGES.test(i) || ownLogging(i)),
  };
}
