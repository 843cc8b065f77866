import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { unusedPort } from '../support/local';
import { npmStart, type NpmStart } from '../support/npm-start';

/**
 * The first hour of a newcomer, on another port than 3000: `PORT=P npm start` in one terminal,
 * every command its banner prints run as printed in another terminal (where PORT is not set),
 * `npm run monitor` before and after a restart of `npm start`, a burst of reads, then `npm start
 * -- --fresh`. `npm start` runs in a process of its own (as test/e2e/npm-start.test.ts runs it),
 * with LOCAL_DATA_DIR pointing its .data/ at a folder of the test's own, so nothing of the
 * developer's .data/ is touched and the defaults (no --data, no --state) are what is exercised.
 */
const ROOT = path.resolve(__dirname, '../..');

let dataDir: string;
let port: number;
let server: NpmStart | undefined;

/** The environment of a second terminal: no PORT, no SERVICE_URL, nothing the test process set for its own services (nor the tests' silent log level). */
function terminalEnv(): NodeJS.ProcessEnv {
  const { PORT: _port, SERVICE_URL: _url, LEDGER_VERIFIER_KEYS: _keys, AWS_LAMBDA_MAX_CONCURRENCY: _concurrency, POWERTOOLS_LOG_LEVEL: _level, ...env } = process.env;
  return { ...env, LOCAL_DATA_DIR: dataDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', NO_COLOR: '1' };
}

/** `npm start [args]` with PORT set; resolves with its banner. */
async function start(...args: string[]): Promise<string> {
  // Every invocation sampled: a served read writes its 'request served' line only when its
  // invocation logs at DEBUG (functions/http/request-log.ts), and the burst below reads those lines.
  server = await npmStart(args, { ...terminalEnv(), PORT: String(port), POWERTOOLS_LOGGER_SAMPLE_RATE: '1' }, 90_000);
  return server.banner;
}

async function stop(): Promise<void> {
  await server?.stop();
  server = undefined;
}

/** One command line run by bash in the repository, as a person pastes it. */
async function shell(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], { cwd: ROOT, env: terminalEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The commands a banner prints (indented lines starting with curl or npm). */
function printedCommands(banner: string): string[] {
  return banner
    .split('\n')
    .filter((line) => /^ {2}(curl|npm) /.test(line))
    .map((line) => line.trim());
}

const base = () => `http://127.0.0.1:${port}`;

async function waitForState(reference: string, state: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const body = (await (await fetch(`${base()}/v1/objects/${reference}`)).json()) as { object?: { state?: string } };
    if (body.object?.state === state) return;
    if (Date.now() > deadline) throw new Error(`${reference} did not reach ${state}: ${JSON.stringify(body).slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'first-hour-'));
  port = await unusedPort();
});

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the first hour on another port', () => {
  test('every command the banner prints works as printed from a terminal without PORT', async () => {
    const banner = await start();
    expect(banner).toContain(`service on ${base()}`);
    expect(banner).toContain('A new demo log, kept in');
    const commands = printedCommands(banner);
    expect(commands.some((line) => line.startsWith('npm run emit') && line.includes(`--url ${base()}`))).toBe(true);
    expect(commands.some((line) => line.startsWith('npm run monitor'))).toBe(true);
    const outcomes: string[] = [];
    for (const line of commands) {
      const { code, stdout, stderr } = await shell(line);
      const failsOnPurpose = line.includes('fails on purpose');
      const ok = failsOnPurpose ? code === 1 : code === 0 && !/fetch failed|ECONNREFUSED/.test(stderr);
      outcomes.push(`${ok ? 'ok' : `exit ${code}`} ${line}${ok ? '' : `\n${stdout.slice(-600)}${stderr.slice(-600)}`}`);
      if (line.startsWith('npm run emit')) await waitForState(DEMO_OBJECTS.current, 'RETURNED');
    }
    expect(outcomes.filter((line) => !line.startsWith('ok '))).toEqual([]);
  }, 240_000);

  test('npm run monitor keeps its state under .data/monitor, not in the working tree', async () => {
    const stateFile = path.join(dataDir, 'monitor', `127.0.0.1_${port}.json`);
    expect(existsSync(stateFile)).toBe(true);
    expect(existsSync(path.join(ROOT, 'ledger-monitor-state.json'))).toBe(false);
  });

  test('after a restart of npm start the monitor sees the log only grow, and the event sent before it is still there', async () => {
    await stop();
    const banner = await start();
    expect(banner).toContain('The demo log of earlier runs continues');
    const monitor = await shell(`npm run monitor -- ${base()}`);
    expect(monitor.stdout).toMatch(/the log only grew from \d+ to \d+/);
    expect(monitor.stdout).not.toContain('FAIL');
    expect(monitor.code).toBe(0);
    const object = (await (await fetch(`${base()}/v1/objects/${DEMO_OBJECTS.current}`)).json()) as { object: { state: string } };
    expect(object.object.state).toBe('RETURNED');
  }, 120_000);

  test('200 reads at once: no 503, and every log line names its own request', async () => {
    const from = server!.output().length;
    const paths = [`/v1/objects/${DEMO_OBJECTS.current}`, `/v1/objects/${DEMO_OBJECTS.longHistory}?limit=5`, '/v1/commercial-proofs/PRF-2026-0101', '/v1/credentials/verify/CRED-2026-0001'];
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await fetch(`${base()}${paths[i % paths.length]}`);
        await res.arrayBuffer();
        return { status: res.status, correlationId: res.headers.get('x-correlation-id') };
      }),
    );
    expect(answers.filter(({ status }) => status !== 200)).toEqual([]);
    // A read a shared cache may keep names the platform's request id, never a caller's (docs/errors.md).
    const ours = new Set(answers.map(({ correlationId }) => correlationId));
    expect(ours.size).toBe(200);
    // The last request's line may still be on its way through the pipe.
    const deadline = Date.now() + 5_000;
    const servedLines = () =>
      server!
        .output()
        .slice(from)
        .split('\n')
        .filter((line) => line.includes('"request served"'))
        .map((line) => JSON.parse(line) as { function_request_id: string; correlation_id: string })
        .filter((line) => ours.has(line.correlation_id));
    while (servedLines().length < 200 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const served = servedLines();
    expect(served).toHaveLength(200);
    expect(new Set(served.map((line) => line.correlation_id)).size).toBe(200);
    expect(new Set(served.map((line) => line.function_request_id)).size).toBe(200);
  }, 120_000);

  test('npm start -- --fresh starts a new log and says what a monitor will report; the monitor reports it, and passes once started over', async () => {
    await stop();
    const banner = await start('--fresh');
    expect(banner).toContain('Started over (--fresh): this is a new log');
    const hint = /rm (\S+)\*/.exec(banner);
    expect(hint).not.toBeNull();
    const before = await shell(`npm run monitor -- ${base()}`);
    expect(before.stdout).toContain('FAIL');
    expect(before.code).toBe(1);
    expect((await shell(`rm ${hint![1]}*`)).code).toBe(0);
    const after = await shell(`npm run monitor -- ${base()}`);
    expect(after.stdout).toMatch(/verified \d+ entries of/);
    expect(after.code).toBe(0);
  }, 120_000);

  test('a second npm start on the same store is refused with what holds it', async () => {
    const second = await shell(`PORT=0 npm start`);
    expect(second.stderr).toContain('is in use by another process');
    expect(second.code).toBe(1);
  }, 60_000);

  test('npm run emit with nothing listening names the URL it tried, where it came from, and how to fix it', async () => {
    const closed = await unusedPort();
    const emit = await shell(`PORT=${closed} npm run emit -- svc.living-object.state-changed.v1 ${DEMO_OBJECTS.current} state=RETURNED`);
    expect(emit.stderr).toContain(`could not reach http://127.0.0.1:${closed} (from PORT): nothing listens there`);
    expect(emit.stderr).toContain('pass it with --url URL');
    expect(emit.code).toBe(2);
  }, 60_000);
});
