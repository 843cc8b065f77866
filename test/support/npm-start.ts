import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** The banner's last line: everything `npm start` says about itself is printed once it is. */
const BANNER_END = 'Ctrl-C stops everything.';

export interface NpmStart {
  child: ChildProcess;
  /** The banner, up to its last line. */
  banner: string;
  /** Where the service listens, as the banner says. */
  url: string;
  /** Everything printed so far on stdout and stderr, the banner and every log line after it. */
  output(): string;
  /** Ctrl-C, as a person stops it; resolves once the process has ended. */
  stop(): Promise<void>;
}

/**
 * `npm start [args]` as a person runs it: bin/serve.ts from source through tsx, in a process of
 * its own (a service started again in the test's process would keep the first one's store
 * clients). `env` is the whole environment (PORT=0 unless it names a port); resolves once the
 * banner is printed.
 */
export async function npmStart(args: readonly string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 60_000): Promise<NpmStart> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/serve.ts'), ...args], {
    cwd: ROOT,
    env: { PORT: '0', ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not finish starting within ${timeoutMs / 1000} s:\n${output}`)), timeoutMs);
      child.stdout!.on('data', () => {
        if (!output.includes(BANNER_END)) return;
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`npm start ended (${code}) before listening:\n${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const banner = output.slice(0, output.indexOf(BANNER_END) + BANNER_END.length);
  const url = /service on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
  if (!url) {
    await stop();
    throw new Error(`npm start's banner names no address:\n${banner}`);
  }
  return { child, banner, url, output: () => output, stop };
}
